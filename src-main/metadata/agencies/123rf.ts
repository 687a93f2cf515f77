import { MB, type AgencyProfile } from './profile';

// 123RF. "How to upload photos or illustrations" (blog.123rf.com/how-to-upload-photos-or-
// illustrations) and the photographer FAQ (123rf.com/submit/photographersfaq.php).

export const profile: AgencyProfile = {
  id: '123rf',
  name: '123RF',
  sources: [
    { url: 'https://blog.123rf.com/how-to-upload-photos-or-illustrations', what: 'JPEG, at least 6 MP, at most 30 MB; IPTC caption and keywords read on upload; editorial descriptions', checked: '2026-11-23' },
    { url: 'http://blog.123rf.com/3-1-uploading-stock-photography-commercial/', what: 'web form or FTP upload', checked: '2026-11-23' },
  ],
  csv: null,
  photoFormats: ['jpg', 'jpeg'],
  minPixels: 6_000_000,
  maxFileBytes: 30 * MB,
  description: { from: 'caption', required: true },
  keywords: { min: 1 },
  releases: 'Model and property release forms accompany the photos (uploaded on the site).',
  upload: { protocols: ['ftp'], host: null, note: 'An FTP account per contributor; the host is shown in the contributor area.' },
  notFound: [
    'A metadata CSV and its header (IPTC in the file is read instead).',
    'Title and keyword counts and lengths.',
    'Categories.',
    'The editorial caption format (its guide is linked, not read).',
    'File-name rules.',
    'The FTP host name.',
  ],
};
