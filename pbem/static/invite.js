// The invite link's "Copy" button: the link to the clipboard, and a word that it is there.
// Without JavaScript (or a clipboard) the link stays selectable in its box.
(function () {
  "use strict";
  var box = document.querySelector("[data-invite-link]");
  var button = document.querySelector("[data-copy-invite]");
  var said = document.querySelector("[data-copy-said]");
  if (!box || !button || !navigator.clipboard) return;
  button.hidden = false;
  button.addEventListener("click", function () {
    navigator.clipboard.writeText(box.value).then(function () {
      said.textContent = "Copied: paste it in a message to your friends.";
    }, function () {
      box.select();
      said.textContent = "Select the link and copy it.";
    });
  });
  box.addEventListener("focus", function () { box.select(); });
})();
