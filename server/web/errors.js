// @ts-check
/**
 * Keeps the page's uncaught errors, rejections and CSP violations in `window.noughtsErrors`,
 * where the browser tests (and anyone curious) look. Imported first, so that it sees them all.
 */

const errors = /** @type {string[]} */ ([]);
/** @type {any} */ (window).noughtsErrors = errors;
window.addEventListener("error", (event) => errors.push(String(event.message)));
window.addEventListener("unhandledrejection", (event) => errors.push(String(event.reason)));
document.addEventListener("securitypolicyviolation", (event) => errors.push(`blocked by the CSP: ${event.violatedDirective}`));
