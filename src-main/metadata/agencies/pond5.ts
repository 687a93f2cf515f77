import type { AgencyProfile } from './profile';

// Pond5. Photo specs: "Image Upload Specifications" (help.pond5.com/hc/en-us/articles/
// 200944223); titles and keywords: "Tagging & Pricing Your Files" (contributor.pond5.com/
// getting-started/preparing-your-files); FTP: help.pond5.com/hc/en-us/articles/5490207819405.

export const profile: AgencyProfile = {
  id: 'pond5',
  name: 'Pond5',
  sources: [
    { url: 'https://help.pond5.com/hc/en-us/articles/200944223-Image-Upload-Specifications', what: 'JPG/TIFF/PNG, at least 2 MP, both sides over 1200 px, file-name characters', checked: '2026-11-23' },
    { url: 'https://contributor.pond5.com/getting-started/preparing-your-files/', what: 'title 40–80 characters, 5 to 50 keywords, editorial title format', checked: '2026-11-23' },
    { url: 'https://help.pond5.com/hc/en-us/articles/5490207819405-Using-the-FTP-File-Transfer-Protocol-Uploader', what: 'FTP host ftp.pond5.com, FTP password set in the account; releases in the Release folder', checked: '2026-11-23' },
  ],
  csv: null,
  title: { from: 'title', required: true, maxChars: 80 },
  keywords: { min: 5, max: 50 },
  editorial: {
    format: 'CITY, COUNTRY – MONTH/DAY/YEAR: factual description (e.g. “PRAGUE, CZECH REPUBLIC – 05/11/2017: Runners at Prague City Half Marathon”)',
    pattern: /^[^,:]+,[^:]+[–-]\s*\d{1,2}\/\d{1,2}\/\d{4}:\s*\S/,
  },
  releases: 'Model and property releases go into the FTP “Release” folder or are attached on the site.',
  fileName: { forbidden: { pattern: /[^A-Za-z0-9. ]/, what: 'special characters, accents, dashes or underscores' } },
  photoFormats: ['jpg', 'jpeg', 'tif', 'tiff', 'png'],
  minPixels: 2_000_000,
  minSide: 1201,
  upload: { protocols: ['ftp'], host: 'ftp.pond5.com', note: 'FTP with the account’s user name and the separate FTP password set under Account › FTP.' },
  notFound: [
    'The metadata CSV header (Pond5 accepts a CSV, but its columns were not in the pages read).',
    'Categories.',
    'Maximum file size.',
  ],
};
