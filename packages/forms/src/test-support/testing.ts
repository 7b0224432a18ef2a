// What tools outside the forms package (bench/) may use of its test-support, as
// `@havn/forms/testing`.
export { startFormsChild, type FormsChild } from './forms-child.js';
export { seedForm } from './forms-server.js';
