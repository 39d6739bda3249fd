// MathJax for the math of the API reference (pymdownx.arithmatex: \( \) and \[ \]) and of the
// notebooks' Markdown cells ($ $ and $$ $$). Code and pre elements are skipped, as MathJax's default.
window.MathJax = {
  tex: {
    inlineMath: [["\\(", "\\)"], ["$", "$"]],
    displayMath: [["\\[", "\\]"], ["$$", "$$"]],
    processEscapes: true,
    processEnvironments: true,
  },
};

document$.subscribe(() => {
  MathJax.startup.output.clearCache();
  MathJax.typesetClear();
  MathJax.texReset();
  MathJax.typesetPromise();
});
