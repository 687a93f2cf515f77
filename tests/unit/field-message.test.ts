import { describe, expect, it } from 'vitest';
import { fieldLabel, fieldMessage } from '../../src-renderer/src/features/create/fields';

// Issue 35: errors on the Create forms name the field as the form labels it, once, and never the
// request's parameter name.

describe('fieldMessage', () => {
  it('names the field by its label, once, without the parameter name', () => {
    expect(fieldMessage('lora_url', 'lora_url: must be an http(s) URL')).toBe('LoRA weights URL: must be an http(s) URL');
    expect(fieldMessage('sourceRoles', 'sourceRoles: gemini-3 takes at most 2 style references (3 marked).')).toBe('Reference roles: gemini-3 takes at most 2 style references (3 marked).');
    expect(fieldMessage('loraUrl', 'Invalid request to startImageJob: “loraUrl” must be a string.')).toBe('LoRA weights URL: must be a string.');
  });
  it('finds the field in the message when the error carries none', () => {
    expect(fieldMessage(null, 'seed: must be an integer (-1 for random)')).toBe('Seed: must be an integer (-1 for random)');
    expect(fieldMessage(null, 'the service is busy')).toBe('The service is busy');
    expect(fieldMessage(null, 'The service refused the request: lora_url: must be reachable')).toBe('LoRA weights URL: must be reachable (the service refused the request)');
    expect(fieldMessage(null, 'The service refused the request: the request was refused')).toBe('The service refused the request: the request was refused');
  });
  it('words an unknown field readably', () => {
    expect(fieldLabel('num_images')).toBe('Num images');
    expect(fieldLabel('image_size')).toBe('Image size');
  });
});
