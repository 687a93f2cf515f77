import { MB, type AgencyProfile } from './profile';

// Alamy. "How do I pass QC?" (alamy.com/contributor/faqs/quality-control): JPEG, over 17 MB
// when uncompressed/open; the older technical criteria page adds RGB, 8 bits per channel.

export const profile: AgencyProfile = {
  id: 'alamy',
  name: 'Alamy',
  sources: [
    { url: 'https://www.alamy.com/contributor/faqs/quality-control', what: 'JPEG; over 17 MB uncompressed', checked: '2026-11-23' },
    { url: 'http://www.alamy.com/contributors/stock-photography-technical-criteria.asp', what: 'RGB, 8 bits per channel, no greyscale', checked: '2026-11-23' },
  ],
  csv: null,
  photoFormats: ['jpg', 'jpeg'],
  // 17 MB open in an image editor: width × height × 3 bytes (8-bit RGB).
  minUncompressedBytes: 17 * MB,
  upload: { protocols: [], host: null, note: 'No FTP, FTPS or SFTP upload host was found in the pages read; uploads go through Alamy Image Manager.' },
  notFound: [
    'A metadata CSV and its header.',
    'Caption, tag and keyword limits.',
    'Categories.',
    'Editorial caption format.',
    'File-name rules.',
    'Releases (how they are attached).',
    'An FTP/FTPS/SFTP upload host.',
  ],
};
