import type { AgencyProfile } from './profile';

// Getty Images / iStock. Contributors submit through ESP (esp.gettyimages.com) or the
// Contributor app; keywords are chosen from Getty's controlled vocabulary.

export const profile: AgencyProfile = {
  id: 'getty',
  name: 'Getty Images / iStock',
  sources: [
    { url: 'https://workwithus.gettyimages.com/en/FAQs', what: 'photos as JPEG, at most 3 GB', checked: '2026-11-23' },
    { url: 'https://contributors.gettyimages.com/article_public.aspx?article_id=5678', what: 'Contributor app: uploads, metadata, releases attached to photos', checked: '2026-11-23' },
  ],
  csv: null,
  photoFormats: ['jpg', 'jpeg'],
  maxFileBytes: 3 * 1024 * 1024 * 1024,
  releases: 'Model and property releases are attached to the photos in ESP or the Contributor app.',
  upload: { protocols: [], host: null, note: 'Uploads go through ESP in a browser or the Contributor app; no FTP, FTPS or SFTP upload was found in the published contributor documentation.' },
  notFound: [
    'A metadata CSV and its header.',
    'Title and description lengths.',
    'Keyword counts (keywords come from Getty’s controlled vocabulary in ESP).',
    'Categories.',
    'Editorial caption format.',
    'File-name rules.',
    'Minimum resolution (only third-party pages state one).',
    'An FTP/FTPS/SFTP upload host.',
  ],
};
