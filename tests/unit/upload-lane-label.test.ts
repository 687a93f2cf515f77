import { describe, expect, it } from 'vitest';
import { AGENCY_IDS, agencyProfile } from '../../src-main/metadata/agencies';
import { uploadLane } from '../../src-main/upload/upload-job';
import { laneLabel } from '../../src-renderer/src/features/activity/labels';

// Activity names an agency's upload lane by the agency's name ("Upload to Adobe Stock"), not its id.
describe('upload lane labels', () => {
  it('say every agency’s name as its profile spells it', () => {
    for (const id of AGENCY_IDS) expect(laneLabel(uploadLane(id))).toBe(`Upload to ${agencyProfile(id).name}`);
    expect(laneLabel(uploadLane('adobe'))).toBe('Upload to Adobe Stock');
  });
  it('fall back to the id for a lane of an agency it does not know, and leave other lanes alone', () => {
    expect(laneLabel('local:upload:toString')).toBe('Upload to toString');
    expect(laneLabel('keywords')).toBe('Keywords');
  });
});
