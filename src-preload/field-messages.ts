// A field error as a photographer reads it, shared by the panels (renderer) and the command line (main).
/**
 * The name the user sees on the form for a request field (the service's snake_case name or the
 * Api's camelCase one), so an error reads "LoRA weights URL: must be…", never "lora_url lora_url: …".
 */
const FIELD_LABEL: Record<string, string> = {
  prompt: 'Prompt',
  model: 'Model',
  image_size: 'Image size',
  imageSize: 'Image size',
  resolution: 'Resolution',
  quality: 'Quality',
  style: 'Style',
  seed: 'Seed',
  lora_url: 'LoRA weights URL',
  loraUrl: 'LoRA weights URL',
  image_url: 'Source image',
  styleImage: 'Style source image',
  image_urls: 'Source images',
  sources: 'Source images',
  sourceRoles: 'Reference roles',
  megapixels: 'Megapixels vs source',
  audio: 'Speech audio',
  audio_url: 'Speech audio',
  video_url: 'Clip',
  text: 'Text',
  voice: 'Voice',
  source: 'Donor face',
  target: 'Target',
};

export function fieldLabel(field: string): string {
  return FIELD_LABEL[field] ?? FIELD_LABEL[field.split('.')[0]] ?? field.replace(/[._]/g, ' ').replace(/([a-z])([A-Z])/g, '$1 $2').replace(/^./, (c) => c.toUpperCase());
}

/**
 * A message about `field` as the user reads it: led by the field's name on the form, with the
 * technical prefixes the service and the Api put in front ("lora_url: ", "Invalid request to
 * startImageJob: “loraUrl” ") taken off.
 */
export function fieldMessage(field: string | null | undefined, message: string): string {
  // The service's own refusal keeps its lead-in after the field ("The service refused the request: lora_url: …").
  const refused = /^The service refused the request: /.exec(message.trim());
  let m = message.trim().replace(/^Invalid request to \w+: /, '').replace(/^The service refused the request: /, '');
  const names = new Set([field, ...Object.keys(FIELD_LABEL)].filter((x): x is string => !!x));
  for (const n of names) {
    for (const prefix of [`${n}: `, `“${n}” `, `${n} `]) {
      if (m.startsWith(prefix)) {
        m = m.slice(prefix.length);
        if (!field) field = n;
      }
    }
  }
  const tail = refused ? ' (the service refused the request)' : '';
  if (!field) return (refused ? refused[0] : '') + (refused ? m : m.charAt(0).toUpperCase() + m.slice(1));
  return `${fieldLabel(field)}: ${m}${tail}`;
}
