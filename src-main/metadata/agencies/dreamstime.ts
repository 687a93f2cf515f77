import type { AgencyProfile } from './profile';

// Dreamstime. Contributor FAQ "What requirements do you have?" (dreamstime.com/faqs-detail-2)
// and "How to upload my images?" (dreamstime.com/faq4529).

export const profile: AgencyProfile = {
  id: 'dreamstime',
  name: 'Dreamstime',
  sources: [
    { url: 'http://www.dreamstime.com/faqs-detail-2', what: 'JPG, RGB, 3 MP to 70 MP; FTP for contributors above an approval rate', checked: '2026-11-23' },
    { url: 'https://www.dreamstime.com/faq4529-how-to-upload-my-images', what: 'regular or FTP upload (activated in My Account); commercial vs editorial tabs', checked: '2026-11-23' },
  ],
  csv: null,
  photoFormats: ['jpg', 'jpeg'],
  minPixels: 3_000_000,
  maxPixels: 70_000_000,
  releases: 'Model releases are added to the account’s release library and chosen per image.',
  upload: { protocols: ['ftp'], host: null, note: 'FTP is activated in My Account, which shows the server and password.' },
  notFound: [
    'A metadata CSV and its header.',
    'Title, description and keyword limits.',
    'Categories (chosen on the site).',
    'Editorial caption format.',
    'File-name rules.',
    'The FTP host name (shown in the account).',
  ],
};
