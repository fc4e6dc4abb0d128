// The replay's keys: each follows the stepper's link for it, so the keys go exactly where the
// buttons do (and the page works the same without this script).
"use strict";
document.addEventListener("keydown", function (event) {
  if (event.altKey || event.ctrlKey || event.metaKey || event.shiftKey) return;
  var target = event.target;
  if (target && (target.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName))) return;
  var link = document.querySelector('.stepper a[data-key="' + event.key + '"]');
  if (!link) return;
  event.preventDefault();
  window.location.assign(link.href);
});
