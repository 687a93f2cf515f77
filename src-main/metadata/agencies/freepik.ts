import { MB, type AgencyProfile } from './profile';

// Freepik (now Magnific). "Content Submission Requirements" (support.freepik.com/hc/en-us/
// articles/115003799325) and "FTP upload method" (freepik.com/ai/contributors/ftp-upload-method).

export const profile: AgencyProfile = {
  id: 'freepik',
  name: 'Freepik',
  sources: [
    { url: 'https://support.freepik.com/hc/en-us/articles/115003799325-Content-Submission-Requirements', what: 'JPEG, RGB, over 0.5 MB, 2,000–10,000 px per side, title and tags in the file’s metadata', checked: '2026-11-23' },
    { url: 'https://www.freepik.com/ai/contributors/ftp-upload-method', what: 'FTP for contributors with at least 500 published files; a CSV may add metadata', checked: '2026-11-23' },
  ],
  csv: null,
  title: { from: 'title', required: true },
  keywords: { min: 1 },
  photoFormats: ['jpg', 'jpeg'],
  minSide: 2000,
  maxSide: 10_000,
  minFileBytes: MB / 2,
  releases: 'Model and property releases are included with the submission.',
  upload: { protocols: ['ftp'], host: null, note: 'Only for contributors with at least 500 published files; user, port and password are in the contributor panel.' },
  notFound: [
    'The metadata CSV header (a CSV is accepted; its columns were not in the pages read).',
    'Title and keyword counts and lengths.',
    'Categories.',
    'Editorial caption format.',
    'File-name rules.',
    'The FTP host name. (The FTP page also says “below 1.5 MB”, which contradicts the requirements page’s “over 0.5 MB”; the latter is used.)',
  ],
};
