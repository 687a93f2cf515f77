// Fixed vocabulary and palette the simulator derives its analysis answers from.
// Keeping them as data makes answers deterministic and lets tests predict them.

export const LANGS = ['en', 'ru', 'es', 'fr', 'de', 'pt', 'it'] as const;
export type Lang = (typeof LANGS)[number];

/** Colour names and reference RGB used to quantise pixels (nearest wins). */
export const PALETTE: { name: string; rgb: [number, number, number] }[] = [
  { name: 'black', rgb: [10, 10, 10] },
  { name: 'white', rgb: [245, 245, 245] },
  { name: 'gray', rgb: [128, 128, 128] },
  { name: 'silver', rgb: [192, 192, 192] },
  { name: 'dark gray', rgb: [64, 64, 64] },
  { name: 'red', rgb: [220, 30, 30] },
  { name: 'maroon', rgb: [120, 20, 20] },
  { name: 'orange', rgb: [245, 140, 20] },
  { name: 'yellow', rgb: [240, 220, 30] },
  { name: 'brown', rgb: [130, 85, 45] },
  { name: 'beige', rgb: [225, 205, 165] },
  { name: 'green', rgb: [40, 170, 50] },
  { name: 'dark green', rgb: [20, 80, 30] },
  { name: 'olive', rgb: [128, 128, 30] },
  { name: 'teal', rgb: [20, 128, 128] },
  { name: 'cyan', rgb: [40, 220, 230] },
  { name: 'sky blue', rgb: [120, 180, 235] },
  { name: 'blue', rgb: [30, 70, 220] },
  { name: 'navy', rgb: [15, 25, 100] },
  { name: 'purple', rgb: [120, 40, 160] },
  { name: 'magenta', rgb: [255, 0, 255] },
  { name: 'pink', rgb: [240, 150, 190] },
];

/** Colour families the keyword rules look at (share of the image, 0..1). */
export const FAMILY: Record<string, string> = {
  black: 'dark', 'dark gray': 'dark', navy: 'blue', white: 'white', silver: 'gray', gray: 'gray',
  red: 'red', maroon: 'red', orange: 'orange', yellow: 'yellow', brown: 'brown', beige: 'brown',
  green: 'green', 'dark green': 'green', olive: 'green', teal: 'blue', cyan: 'blue',
  'sky blue': 'blue', blue: 'blue', purple: 'purple', magenta: 'pink', pink: 'pink',
};

export interface ImageFeatures {
  /** share of the image per colour family */
  family: Record<string, number>;
  /** mean luminance 0..1 */
  luminance: number;
  /** mean saturation 0..1 */
  saturation: number;
  /** width / height */
  aspect: number;
  /** sharpness 0..1 */
  sharpness: number;
  faces: number;
  video: boolean;
}

type Rule = (f: ImageFeatures) => number;
const fam = (name: string, k = 1.2): Rule => (f) => Math.min(1, (f.family[name] ?? 0) * k);

/** [en, ru, es, fr, de, pt, it] and the rule that scores the concept. */
export const CONCEPTS: { t: [string, string, string, string, string, string, string]; score: Rule }[] = [
  { t: ['sky', 'небо', 'cielo', 'ciel', 'Himmel', 'céu', 'cielo'], score: (f) => fam('blue', 1.1)(f) * (f.luminance > 0.35 ? 1 : 0.6) },
  { t: ['blue', 'синий', 'azul', 'bleu', 'blau', 'azul', 'blu'], score: fam('blue', 1.3) },
  { t: ['water', 'вода', 'agua', 'eau', 'Wasser', 'água', 'acqua'], score: (f) => fam('blue', 0.95)(f) },
  { t: ['sea', 'море', 'mar', 'mer', 'Meer', 'mar', 'mare'], score: (f) => fam('blue', 0.8)(f) * (f.aspect > 1 ? 1 : 0.7) },
  { t: ['nature', 'природа', 'naturaleza', 'nature', 'Natur', 'natureza', 'natura'], score: (f) => Math.min(1, ((f.family.green ?? 0) + (f.family.blue ?? 0) * 0.4) * 1.2) },
  { t: ['green', 'зелёный', 'verde', 'vert', 'grün', 'verde', 'verde'], score: fam('green', 1.3) },
  { t: ['grass', 'трава', 'hierba', 'herbe', 'Gras', 'grama', 'erba'], score: fam('green', 1.0) },
  { t: ['forest', 'лес', 'bosque', 'forêt', 'Wald', 'floresta', 'foresta'], score: (f) => fam('green', 0.9)(f) * (f.luminance < 0.5 ? 1 : 0.7) },
  { t: ['leaf', 'лист', 'hoja', 'feuille', 'Blatt', 'folha', 'foglia'], score: fam('green', 0.75) },
  { t: ['red', 'красный', 'rojo', 'rouge', 'rot', 'vermelho', 'rosso'], score: fam('red', 1.3) },
  { t: ['love', 'любовь', 'amor', 'amour', 'Liebe', 'amor', 'amore'], score: (f) => Math.min(1, ((f.family.red ?? 0) + (f.family.pink ?? 0)) * 0.7) },
  { t: ['sunset', 'закат', 'atardecer', 'coucher de soleil', 'Sonnenuntergang', 'pôr do sol', 'tramonto'], score: (f) => Math.min(1, ((f.family.orange ?? 0) + (f.family.red ?? 0) * 0.5) * 1.1) },
  { t: ['orange', 'оранжевый', 'naranja', 'orange', 'orange', 'laranja', 'arancione'], score: fam('orange', 1.3) },
  { t: ['warm', 'тёплый', 'cálido', 'chaud', 'warm', 'quente', 'caldo'], score: (f) => Math.min(1, ((f.family.orange ?? 0) + (f.family.red ?? 0) + (f.family.yellow ?? 0)) * 0.8) },
  { t: ['yellow', 'жёлтый', 'amarillo', 'jaune', 'gelb', 'amarelo', 'giallo'], score: fam('yellow', 1.3) },
  { t: ['sun', 'солнце', 'sol', 'soleil', 'Sonne', 'sol', 'sole'], score: (f) => fam('yellow', 0.9)(f) * (f.luminance > 0.5 ? 1 : 0.5) },
  { t: ['wood', 'дерево', 'madera', 'bois', 'Holz', 'madeira', 'legno'], score: fam('brown', 1.1) },
  { t: ['brown', 'коричневый', 'marrón', 'marron', 'braun', 'marrom', 'marrone'], score: fam('brown', 1.3) },
  { t: ['earth', 'земля', 'tierra', 'terre', 'Erde', 'terra', 'terra'], score: fam('brown', 0.8) },
  { t: ['white', 'белый', 'blanco', 'blanc', 'weiß', 'branco', 'bianco'], score: fam('white', 1.3) },
  { t: ['snow', 'снег', 'nieve', 'neige', 'Schnee', 'neve', 'neve'], score: (f) => fam('white', 1.0)(f) * (f.luminance > 0.7 ? 1 : 0.5) },
  { t: ['minimal', 'минимализм', 'minimalista', 'minimaliste', 'minimalistisch', 'minimalista', 'minimalista'], score: (f) => (1 - f.sharpness) * 0.7 },
  { t: ['night', 'ночь', 'noche', 'nuit', 'Nacht', 'noite', 'notte'], score: (f) => Math.max(0, (0.4 - f.luminance) * 2.4) },
  { t: ['dark', 'тёмный', 'oscuro', 'sombre', 'dunkel', 'escuro', 'scuro'], score: (f) => Math.max(0, (0.45 - f.luminance) * 2.1) },
  { t: ['black', 'чёрный', 'negro', 'noir', 'schwarz', 'preto', 'nero'], score: fam('dark', 1.2) },
  { t: ['light', 'свет', 'luz', 'lumière', 'Licht', 'luz', 'luce'], score: (f) => Math.max(0, (f.luminance - 0.55) * 2.2) },
  { t: ['bright', 'яркий', 'brillante', 'lumineux', 'hell', 'brilhante', 'luminoso'], score: (f) => Math.max(0, (f.luminance - 0.6) * 2.4) },
  { t: ['day', 'день', 'día', 'jour', 'Tag', 'dia', 'giorno'], score: (f) => Math.max(0, (f.luminance - 0.45) * 1.6) },
  { t: ['gray', 'серый', 'gris', 'gris', 'grau', 'cinza', 'grigio'], score: fam('gray', 1.3) },
  { t: ['city', 'город', 'ciudad', 'ville', 'Stadt', 'cidade', 'città'], score: (f) => fam('gray', 0.8)(f) * (0.5 + f.sharpness * 0.5) },
  { t: ['pink', 'розовый', 'rosa', 'rose', 'rosa', 'rosa', 'rosa'], score: fam('pink', 1.2) },
  { t: ['flower', 'цветок', 'flor', 'fleur', 'Blume', 'flor', 'fiore'], score: (f) => Math.min(1, ((f.family.pink ?? 0) + (f.family.purple ?? 0) + (f.family.yellow ?? 0) * 0.4) * 0.9) },
  { t: ['purple', 'фиолетовый', 'morado', 'violet', 'lila', 'roxo', 'viola'], score: fam('purple', 1.3) },
  { t: ['portrait', 'портрет', 'retrato', 'portrait', 'Porträt', 'retrato', 'ritratto'], score: (f) => (f.aspect < 0.95 ? 0.75 : 0) + (f.faces > 0 ? 0.2 : 0) },
  { t: ['landscape', 'пейзаж', 'paisaje', 'paysage', 'Landschaft', 'paisagem', 'paesaggio'], score: (f) => (f.aspect > 1.2 ? 0.55 + Math.min(0.3, (f.aspect - 1.2) * 0.5) : 0) },
  { t: ['panorama', 'панорама', 'panorama', 'panorama', 'Panorama', 'panorama', 'panorama'], score: (f) => (f.aspect > 2 ? 0.8 : 0) },
  { t: ['square', 'квадрат', 'cuadrado', 'carré', 'Quadrat', 'quadrado', 'quadrato'], score: (f) => (Math.abs(f.aspect - 1) < 0.05 ? 0.35 : 0) },
  { t: ['monochrome', 'монохром', 'monocromo', 'monochrome', 'einfarbig', 'monocromático', 'monocromatico'], score: (f) => Math.max(0, (0.12 - f.saturation) * 6) },
  { t: ['colorful', 'красочный', 'colorido', 'coloré', 'bunt', 'colorido', 'colorato'], score: (f) => Math.max(0, (f.saturation - 0.35) * 1.6) },
  { t: ['texture', 'текстура', 'textura', 'texture', 'Textur', 'textura', 'texture'], score: (f) => f.sharpness * 0.6 },
  { t: ['blur', 'размытие', 'desenfoque', 'flou', 'Unschärfe', 'desfoque', 'sfocatura'], score: (f) => Math.max(0, (0.3 - f.sharpness) * 1.5) },
  { t: ['person', 'человек', 'persona', 'personne', 'Person', 'pessoa', 'persona'], score: (f) => (f.faces > 0 ? 0.93 : 0) },
  { t: ['face', 'лицо', 'cara', 'visage', 'Gesicht', 'rosto', 'viso'], score: (f) => (f.faces > 0 ? 0.88 : 0) },
  { t: ['people', 'люди', 'gente', 'gens', 'Leute', 'pessoas', 'persone'], score: (f) => (f.faces > 1 ? 0.9 : 0) },
  { t: ['video', 'видео', 'vídeo', 'vidéo', 'Video', 'vídeo', 'video'], score: (f) => (f.video ? 0.8 : 0) },
  { t: ['background', 'фон', 'fondo', 'arrière-plan', 'Hintergrund', 'fundo', 'sfondo'], score: () => 0.3 },
  { t: ['design', 'дизайн', 'diseño', 'conception', 'Design', 'design', 'design'], score: () => 0.22 },
  { t: ['color', 'цвет', 'color', 'couleur', 'Farbe', 'cor', 'colore'], score: (f) => 0.15 + f.saturation * 0.3 },
];

/** FNV-1a: a stable small hash for deterministic choices (casing, jitter). */
export function hash(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h;
}

/**
 * The live service varies casing; the simulator does too, but stably per keyword: lower case or
 * Title Case, and for German its own spelling (nouns capitalised) or now and then ALL CAPS.
 */
export function caseFor(word: string, lang = 'en'): string {
  if (lang === 'de') return hash(word) % 4 === 0 ? word.toUpperCase() : word;
  if (hash(word) % 3 !== 0) return word.toLowerCase();
  return word.replace(/(^|\s)(\p{L})/gu, (_m, sp: string, c: string) => sp + c.toUpperCase());
}

export interface ScoredConcept {
  index: number;
  en: string;
  score: number;
}

export function scoreConcepts(f: ImageFeatures): ScoredConcept[] {
  const out: ScoredConcept[] = [];
  CONCEPTS.forEach((c, index) => {
    const raw = c.score(f);
    if (!(raw > 0.005)) return;
    // A small stable jitter keeps ties apart; scores stay in 0..1.
    const jitter = (hash(c.t[0]) % 100) / 10000;
    out.push({ index, en: c.t[0], score: Math.round(Math.min(0.99, raw + jitter) * 10000) / 10000 });
  });
  out.sort((a, b) => b.score - a.score || a.en.localeCompare(b.en));
  return out;
}

export function translate(index: number, lang: Lang): string {
  return CONCEPTS[index].t[LANGS.indexOf(lang)];
}

/** Age labels of the faces endpoint (lower bounds inclusive). */
export function ageClass(age: number): string {
  if (age < 13) return 'Age - Child';
  if (age < 20) return 'Age - Teenager';
  if (age < 36) return 'Age - Young Adult';
  if (age < 60) return 'Age - Adult';
  return 'Age - Senior';
}

/** Second marker colours inside a magenta face region choose its age. */
export const AGE_MARKERS: { name: string; rgb: [number, number, number]; age: number }[] = [
  { name: 'yellow', rgb: [255, 255, 0], age: 8 },
  { name: 'green', rgb: [0, 255, 0], age: 16 },
  { name: 'blue', rgb: [0, 0, 255], age: 45 },
  { name: 'cyan', rgb: [0, 255, 255], age: 70 },
];
export const DEFAULT_FACE_AGE = 28;

export const VOICES = [
  { api_name: 'Ryan', language: 'eng', gender: 'male', age: 'adult' },
  { api_name: 'Serena', language: 'eng', gender: 'female', age: 'young' },
  { api_name: 'Aiden', language: 'eng', gender: 'male', age: 'young' },
  { api_name: 'Vivian', language: 'eng', gender: 'female', age: 'adult' },
  { api_name: 'Dylan', language: 'eng', gender: 'male', age: 'child' },
  { api_name: 'Eric', language: 'spa', gender: 'male', age: 'adult' },
  { api_name: 'Lucia', language: 'spa', gender: 'female', age: 'young' },
  { api_name: 'Ono_Anna', language: 'jpn', gender: 'female', age: 'young' },
  { api_name: 'Sohee', language: 'kor', gender: 'female', age: 'adult' },
  { api_name: 'Uncle_Fu', language: 'zho', gender: 'male', age: 'old' },
  { api_name: 'Ivan', language: 'rus', gender: 'male', age: 'old' },
  { api_name: 'Claire', language: 'fra', gender: 'female', age: 'adult' },
  { api_name: 'Klaus', language: 'deu', gender: 'male', age: 'adult' },
];
