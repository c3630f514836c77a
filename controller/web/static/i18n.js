// An ES module: every page imports what it uses of it.
// Every word the pages show comes from lang/<code>.json, the pages' part of that language's
// catalogue (controller/words/catalogue/<code>.json: add a language by adding that one file;
// a test checks that it has every key), and lang/index.json names the languages there are. The language is the page's `?lang=`, else the one
// picked on this browser, else the venue's (config.json "language"), else the browser's
// own, else English.
export const LANGUAGES = { en: "English", ru: "Русский" };  // until lang/index.json says which there are
export const STRINGS = { en: {} };  // code -> {key: text}; English is always loaded (the fallback)

export let LANG = "en";  // the page's language, once chooseLanguage has picked it

// Picks the page's language and loads its words; config is config.json's object. Returns
// the language code.
export async function chooseLanguage(config) {
  const params = new URLSearchParams(location.search);
  let stored = null;
  try { stored = localStorage.getItem("billiards.lang"); } catch (e) { /* storage off */ }
  try {
    const r = await fetch("lang/index.json");
    if (r.ok) {
      const listed = await r.json();
      for (const code of Object.keys(LANGUAGES)) if (!(code in listed)) delete LANGUAGES[code];
      Object.assign(LANGUAGES, listed);
    }
  } catch (e) { /* the languages known without it */ }
  const browser = (navigator.languages || [navigator.language || ""]).map((l) => String(l).slice(0, 2));
  const wanted = [params.get("lang"), stored, config && config.language, ...browser];
  LANG = wanted.find((l) => l && LANGUAGES[l]) || "en";
  if (LANGUAGES[params.get("lang")]) {  // asked for in the address: kept for the next pages
    try { localStorage.setItem("billiards.lang", LANG); } catch (e) { /* storage off */ }
  }
  for (const code of new Set(["en", LANG])) {
    try {
      const r = await fetch(`lang/${code}.json`);
      if (r.ok) STRINGS[code] = await r.json();
    } catch (e) { /* a missing file: English, or the keys themselves */ }
  }
  document.documentElement.lang = LANG;
  return LANG;
}

// Returns the text of `key` in the page's language with {name} filled from vars (English
// when the language lacks it; the key itself when nobody has it). With a number `n`, the
// form `key#<plural category>` (Intl.PluralRules: one, few, many, other) where there is one:
// "card.race#one" for «до 1 победы», "card.race" for «до 3 побед».
export function t(key, vars = {}) {
  if (typeof vars.n === "number") {
    const form = `${key}#${new Intl.PluralRules(LANG).select(vars.n)}`;
    if (form in STRINGS.en) key = form;
  }
  const text = (STRINGS[LANG] && STRINGS[LANG][key]) ?? STRINGS.en[key] ?? key;
  return text.replace(/\{(\w+)\}/g, (m, name) => (name in vars ? String(vars[name]) : m));
}
// Returns the text of `prefix.code`, or the code in words when there is none.
export function tOr(prefix, code) {
  const key = `${prefix}.${code}`;
  return key in STRINGS.en ? t(key) : String(code).replaceAll("_", " ");
}

// Translates the page's fixed texts: data-i18n (text), data-i18n-label (aria-label),
// data-i18n-title (title).
export function translateStatic(root = document) {
  for (const node of root.querySelectorAll("[data-i18n]")) node.textContent = t(node.dataset.i18n);
  for (const node of root.querySelectorAll("[data-i18n-label]")) node.setAttribute("aria-label", t(node.dataset.i18nLabel));
  for (const node of root.querySelectorAll("[data-i18n-title]")) node.title = t(node.dataset.i18nTitle);
}

// A <select> that switches the language (kept on this browser) and reloads the page.
export function languagePicker() {
  const select = document.createElement("select");
  select.id = "lang";
  select.setAttribute("aria-label", t("page.language"));
  for (const [code, name] of Object.entries(LANGUAGES)) {
    const option = document.createElement("option");
    option.value = code;
    option.textContent = name;
    option.selected = code === LANG;
    select.append(option);
  }
  select.addEventListener("change", () => {
    try { localStorage.setItem("billiards.lang", select.value); } catch (e) { /* storage off */ }
    const url = new URL(location.href);
    url.searchParams.delete("lang");
    location.replace(url.toString());
  });
  return select;
}

// A 24-hour clock time (HH:MM:SS) of a Date.
export function clockTime(date) {
  return [date.getHours(), date.getMinutes(), date.getSeconds()].map((n) => String(n).padStart(2, "0")).join(":");
}
// A duration in seconds as H:MM:SS or M:SS.
export function duration(seconds) {
  const s = Math.max(0, Math.floor(seconds));
  const h = Math.floor(s / 3600), m = Math.floor((s % 3600) / 60), r = s % 60;
  const mm = String(m).padStart(h ? 2 : 1, "0"), ss = String(r).padStart(2, "0");
  return h ? `${h}:${mm}:${ss}` : `${mm}:${ss}`;
}
