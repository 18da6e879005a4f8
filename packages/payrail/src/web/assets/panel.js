// Progressive enhancement for the Payrail panel. Every page works without
// this script; with it, destructive forms ask for confirmation and one-time
// secrets get a Copy button.

document.addEventListener('submit', (event) => {
  const form = event.target;
  if (!(form instanceof HTMLFormElement)) return;
  const question = form.getAttribute('data-confirm');
  if (question !== null && !window.confirm(question)) event.preventDefault();
});

document.addEventListener('DOMContentLoaded', () => {
  for (const button of document.querySelectorAll('button[data-copy]')) {
    const input = document.getElementById(button.getAttribute('data-copy'));
    if (!(input instanceof HTMLInputElement) || !navigator.clipboard) continue;
    button.hidden = false;
    button.addEventListener('click', async () => {
      try {
        await navigator.clipboard.writeText(input.value);
        button.textContent = 'Copied';
      } catch {
        input.select();
      }
    });
  }
  for (const input of document.querySelectorAll('input[data-secret]')) {
    input.addEventListener('focus', () => input.select());
  }
});
