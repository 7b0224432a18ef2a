// The runtime's stylesheet, scoped to its shadow root. `:host { all: initial }` stops the host
// page's inherited styles (font, colour, line-height) at the boundary; custom properties still
// inherit through it by design, which is how a site themes the form (docs/forms-web.md, Theming).
export const STYLES = `
:host{all:initial;display:block;
--_fg:var(--havn-text,#1f2328);--_muted:var(--havn-muted,#59636e);--_bg:var(--havn-bg,#fff);
--_border:var(--havn-border,#8c959f);--_accent:var(--havn-accent,#0b57d0);
--_on-accent:var(--havn-accent-text,#fff);--_error:var(--havn-error,#b3261e);
--_focus:var(--havn-focus,#0b57d0);--_radius:var(--havn-radius,6px);--_gap:var(--havn-gap,1rem);
font-family:var(--havn-font,system-ui,-apple-system,"Segoe UI",Roboto,sans-serif);
font-size:var(--havn-font-size,16px);line-height:1.5;color:var(--_fg)}
*,*::before,*::after{box-sizing:border-box}
.form{background:var(--_bg);max-width:var(--havn-max-width,40rem);padding:var(--havn-padding,0);margin:0}
h2{font-size:1.5em;line-height:1.25;margin:0 0 .5em}
.intro p{margin:0 0 var(--_gap);white-space:pre-line}
.intro img{max-width:100%;height:auto;border-radius:var(--_radius);margin-bottom:var(--_gap)}
.field{margin:0 0 var(--_gap);padding:0;border:0;min-width:0}
label,legend{display:block;font-weight:600;margin-bottom:.25em;padding:0}
.option,.consent{display:flex;gap:.5em;align-items:flex-start;font-weight:400;margin:.25em 0}
.consent label{font-weight:600;margin:0}
.option label{font-weight:400;margin:0}
.help{color:var(--_muted);margin:0 0 .35em;font-size:.9em}
.req{color:var(--_error)}
input:not([type=radio]):not([type=checkbox]),textarea{display:block;width:100%;font:inherit;color:var(--_fg);
background:var(--_bg);border:1px solid var(--_border);border-radius:var(--_radius);padding:.5em .65em}
input[type=radio],input[type=checkbox]{width:1.15em;height:1.15em;margin:.2em 0 0;flex:none;accent-color:var(--_accent)}
textarea{resize:vertical}
[aria-invalid=true]{border-color:var(--_error)!important;box-shadow:0 0 0 1px var(--_error)}
.error{color:var(--_error);margin:.3em 0 0;font-size:.9em;font-weight:600}
.error:empty{display:none}
:focus-visible{outline:3px solid var(--_focus);outline-offset:2px}
button{font:inherit;font-weight:600;color:var(--_on-accent);background:var(--_accent);border:0;
border-radius:var(--_radius);padding:.6em 1.4em;cursor:pointer}
button[disabled]{opacity:.6;cursor:progress}
.alert{border:1px solid var(--_error);border-inline-start-width:6px;color:var(--_fg);border-radius:var(--_radius);
padding:.75em 1em;margin:0 0 var(--_gap)}
.alert:empty{display:none}
.alert button{margin-top:.5em;display:block}
.thanks{font-size:1.1em;padding:.5em 0;white-space:pre-line}
.nav{display:flex;gap:.75em;flex-wrap:wrap}
.back{color:var(--_accent);background:transparent;box-shadow:inset 0 0 0 2px var(--_accent)}
.step{font-size:1.1em;margin:0 0 var(--_gap)}
[hidden]{display:none!important}
.trap{position:absolute;width:1px;height:1px;overflow:hidden;clip-path:inset(50%)}
.sr{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
`;
