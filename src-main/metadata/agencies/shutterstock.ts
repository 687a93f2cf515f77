import type { AgencyProfile } from './profile';

// Shutterstock. CSV: "How do I include existing metadata with my content submission"
// (submit.shutterstock.com/help/en/articles/10617486); uploads: "How do I submit content"
// (articles/12136175) and the FTPS article (articles/10617392); photo specs and keyword
// rules: the contributor support "Title and Keyword Guidelines" and "How do I submit photos".

export const CATEGORIES = [
  'Abstract', 'Animals/Wildlife', 'Arts', 'Backgrounds/Textures', 'Beauty/Fashion', 'Buildings/Landmarks',
  'Business/Finance', 'Celebrities', 'Education', 'Food and drink', 'Healthcare/Medical', 'Holidays', 'Industrial',
  'Interiors', 'Miscellaneous', 'Nature', 'Objects', 'Parks/Outdoor', 'People', 'Religion', 'Science', 'Signs/Symbols',
  'Sports/Recreation', 'Technology', 'Transportation', 'Vintage',
].map((label) => ({ value: label, label }));

const yesNo = (b: boolean): string => (b ? 'Yes' : 'No');

export const profile: AgencyProfile = {
  id: 'shutterstock',
  name: 'Shutterstock',
  sources: [
    { url: 'https://submit.shutterstock.com/help/en/articles/10617486-how-do-i-include-existing-metadata-with-my-content-submission', what: 'CSV columns, categories (1 or 2)', checked: '2026-11-23' },
    { url: 'https://submit.shutterstock.com/help/en/articles/12136175-how-do-i-submit-content-to-shutterstock', what: 'FTP/FTPS upload, releases', checked: '2026-11-23' },
    { url: 'http://submit.shutterstock.com/help/ru/articles/10617392', what: 'FTPS host ftps.shutterstock.com, port 21, explicit TLS', checked: '2026-11-23' },
    { url: 'https://www.shutterstock.com/contributorsupport/pkb_sstk_core_contributorkb_home', what: 'JPEG/TIFF, at least 4 MP; 7 to 50 keywords', checked: '2026-11-23' },
  ],
  csv: {
    // The template's column order; the help says names must match, optional columns may move.
    header: ['Filename', 'Description', 'Keywords', 'Categories', 'Editorial', 'Mature content', 'illustration'],
    cells: (r) => [r.filename, r.description, r.keywords.join(','), r.categories.slice(0, 2).join(','), yesNo(r.editorial), yesNo(r.mature), yesNo(r.illustration)],
  },
  description: { from: 'caption', required: true, maxChars: 200 },
  keywords: { min: 7, max: 50 },
  categories: { list: CATEGORIES, min: 1, max: 2 },
  releases: 'Model and property releases are attached in the submission editor (not in the CSV).',
  photoFormats: ['jpg', 'jpeg', 'tif', 'tiff'],
  minPixels: 4_000_000,
  upload: { protocols: ['ftps'], host: 'ftps.shutterstock.com', port: 21, note: 'Explicit FTP over TLS with the contributor account’s e-mail or user name and password.' },
  notFound: [
    'Editorial caption format (not in the help articles read).',
    'File-name rules.',
    'Maximum file size for photos.',
    'The category list itself: the CSV help links it; the names here were not re-read from it (2026-11-23).',
  ],
};
