// The forms web app and runtime: built by build.mjs (see docs/definition-format.md).
export {};
