import { MB, type AgencyProfile } from './profile';

// Adobe Stock. CSV layout and field limits: "CSV requirements" (helpx.adobe.com/stock/
// contributor/help/organize-with-csv-files.html); photo specs: "Upload content"
// (helpx.adobe.com/stock/contributor/help/upload-manage-content.html). Both read 2026-11-23.

export const CATEGORIES = [
  'Animals', 'Buildings and Architecture', 'Business', 'Drinks', 'The Environment', 'States of Mind', 'Food',
  'Graphic Resources', 'Hobbies and Leisure', 'Industry', 'Landscapes', 'Lifestyle', 'People', 'Plants and Flowers',
  'Culture and Religion', 'Science', 'Social Issues', 'Sports', 'Technology', 'Transport', 'Travel',
].map((label, i) => ({ value: String(i + 1), label }));

export const profile: AgencyProfile = {
  id: 'adobe',
  name: 'Adobe Stock',
  sources: [
    { url: 'https://helpx.adobe.com/stock/contributor/help/organize-with-csv-files.html', what: 'CSV header, filename, title, keyword and category rules', checked: '2026-11-23' },
    { url: 'https://helpx.adobe.com/stock/contributor/help/upload-manage-content.html', what: 'photo format, resolution and file size; FTP/SFTP upload', checked: '2026-11-23' },
  ],
  csv: {
    header: ['Filename', 'Title', 'Keywords', 'Category', 'Releases'],
    cells: (r) => [r.filename, r.title, r.keywords.join(','), r.categories[0] ?? '', r.releases.join(',')],
    maxRows: 5000,
  },
  title: { from: 'title', required: true, maxChars: 70, forbidden: { pattern: /,/, what: 'commas' } },
  // The CSV help allows 50; the issue that introduced the presets uses 49 (keyword hygiene's Adobe preset).
  keywords: { min: 1, max: 49 },
  categories: { list: CATEGORIES, min: 0, max: 1 },
  releases: 'Release names in the CSV Releases column (the releases are uploaded in the portal first).',
  fileName: { maxChars: 30 },
  photoFormats: ['jpg', 'jpeg'],
  videoFormats: ['mov', 'mp4', 'mpg', 'avi'],
  minPixels: 4_000_000,
  maxPixels: 100_000_000,
  maxFileBytes: 45 * MB,
  upload: {
    protocols: ['sftp'],
    host: null,
    note: 'The server and a one-time password are shown per account in the contributor portal (Upload › Learn more).',
  },
  notFound: [
    'Editorial caption format (not in the CSV or upload help read).',
    'A description field separate from the title (the CSV has none).',
    'The fixed upload host name (given per account in the portal).',
    'The category list itself: the CSV help asks for a category number; the 21 names here were not re-read from an Adobe page (2026-11-23).',
  ],
};
