/** Every family by its key, for tests that name a few (the docs generators' table). */
export { M } from '../../scripts/families.js';
