// The field names and error wording live beside the contract, so the command line words a
// service error exactly as the panels do (src-preload/field-messages.ts).
export { fieldLabel, fieldMessage } from '../../../../src-preload/field-messages';
