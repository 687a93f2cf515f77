import { MB, type AgencyProfile } from './profile';

// Depositphotos. Help center "Getting Started" (help.depositphotos.com/hc/en-us/sections/
// 360002104174) names FTP uploads and the image requirements; the figures are from a
// contributor guide that quotes them (blog.photokeyworder.ai/?p=239).

export const profile: AgencyProfile = {
  id: 'depositphotos',
  name: 'Depositphotos',
  sources: [
    { url: 'https://help.depositphotos.com/hc/en-us/sections/360002104174-Getting-Started', what: 'FTP uploads exist; requirements articles', checked: '2026-11-23' },
    { url: 'https://blog.photokeyworder.ai/?p=239', what: 'JPEG/PNG RGB, at least 3.8 MP (2400 × 1600), at most 50 MB (quoted, not the agency’s page)', checked: '2026-11-23' },
  ],
  csv: null,
  photoFormats: ['jpg', 'jpeg', 'png'],
  minPixels: 3_800_000,
  maxFileBytes: 50 * MB,
  upload: { protocols: ['ftp'], host: null, note: 'FTP access is granted per contributor; the host comes with it.' },
  notFound: [
    'A metadata CSV and its header.',
    'Title, description and keyword limits.',
    'Categories.',
    'Editorial caption format (an editorial guideline article exists; not read).',
    'File-name rules.',
    'The FTP host name.',
  ],
};
