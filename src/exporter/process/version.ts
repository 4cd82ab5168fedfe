/** The exporter's version (kept apart so the serving thread does not load the collectors). */
export const VERSION = '0.1.0';
