/**
 * OpenAI-compatible transcription servers report `language` as an English name ("english") in
 * verbose_json; SPEC wants ISO 639-1. Codes pass through; unknown values answer "und" (undetermined).
 */
const CODES: Record<string, string> = {
  afrikaans: "af",
  albanian: "sq",
  amharic: "am",
  arabic: "ar",
  armenian: "hy",
  assamese: "as",
  azerbaijani: "az",
  bashkir: "ba",
  basque: "eu",
  belarusian: "be",
  bengali: "bn",
  bosnian: "bs",
  breton: "br",
  bulgarian: "bg",
  burmese: "my",
  catalan: "ca",
  chinese: "zh",
  croatian: "hr",
  czech: "cs",
  danish: "da",
  dutch: "nl",
  english: "en",
  estonian: "et",
  faroese: "fo",
  finnish: "fi",
  french: "fr",
  galician: "gl",
  georgian: "ka",
  german: "de",
  greek: "el",
  gujarati: "gu",
  haitian: "ht",
  "haitian creole": "ht",
  hausa: "ha",
  hawaiian: "haw",
  hebrew: "he",
  hindi: "hi",
  hungarian: "hu",
  icelandic: "is",
  indonesian: "id",
  italian: "it",
  japanese: "ja",
  javanese: "jv",
  kannada: "kn",
  kazakh: "kk",
  khmer: "km",
  korean: "ko",
  lao: "lo",
  latin: "la",
  latvian: "lv",
  lingala: "ln",
  lithuanian: "lt",
  luxembourgish: "lb",
  macedonian: "mk",
  malagasy: "mg",
  malay: "ms",
  malayalam: "ml",
  maltese: "mt",
  maori: "mi",
  marathi: "mr",
  mongolian: "mn",
  nepali: "ne",
  norwegian: "no",
  nynorsk: "nn",
  occitan: "oc",
  pashto: "ps",
  persian: "fa",
  polish: "pl",
  portuguese: "pt",
  punjabi: "pa",
  romanian: "ro",
  russian: "ru",
  sanskrit: "sa",
  serbian: "sr",
  shona: "sn",
  sindhi: "sd",
  sinhala: "si",
  slovak: "sk",
  slovenian: "sl",
  somali: "so",
  spanish: "es",
  sundanese: "su",
  swahili: "sw",
  swedish: "sv",
  tagalog: "tl",
  tajik: "tg",
  tamil: "ta",
  tatar: "tt",
  telugu: "te",
  thai: "th",
  tibetan: "bo",
  turkish: "tr",
  turkmen: "tk",
  ukrainian: "uk",
  urdu: "ur",
  uzbek: "uz",
  vietnamese: "vi",
  welsh: "cy",
  yiddish: "yi",
  yoruba: "yo",
  cantonese: "zh",
};

export function toIso6391(language: string | undefined | null): string {
  if (!language) return "und";
  const value = language.trim().toLowerCase();
  if (/^[a-z]{2}$/.test(value)) return value;
  if (/^[a-z]{2}[-_]/.test(value)) return value.slice(0, 2);
  const code = CODES[value];
  return code && code.length === 2 ? code : "und";
}

/** The spoken languages the dashboard offers as a hint (any ISO 639-1 code is accepted by the API). */
const OFFERED = ["en", "de", "fr", "es", "it", "pt", "nl"];

/** The dashboard's choice of spoken language: detection, then the offered languages by name. */
export function speechLanguageOptions(): { value: string; label: string }[] {
  const names = new Map(Object.entries(CODES).map(([name, code]) => [code, name]));
  return [
    { value: "", label: "Detect automatically" },
    ...OFFERED.map((code) => {
      const name = names.get(code) ?? code;
      return { value: code, label: name[0].toUpperCase() + name.slice(1) };
    }),
  ];
}
