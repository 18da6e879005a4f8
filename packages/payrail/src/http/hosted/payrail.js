// Payrail.js: include it on a checkout page to collect a card without the
// page ever touching card data.
//
//   <script src="https://<payrail host>/hosted/payrail.js"></script>
//   var form = Payrail.mountCardForm('#card', { tokenizationToken: 'sbx_pt_...' });
//   form.tokenize().then(function (outcome) {
//     // outcome.ok: outcome.result = { nonce, expires_at, card_type, last_4, expiry_month, expiry_year }
//     // otherwise:  outcome.error  = { code, message }
//     // Send the nonce and expiry to your server, which charges it with its API key and PIN.
//   });
//
// The card fields live in an iframe served by Payrail; messages are accepted
// only from that iframe's window and Payrail's origin.
(() => {
  var script = document.currentScript;
  if (!script?.src) throw new Error('payrail.js must be loaded with a <script src> tag');
  var payrailOrigin = new URL(script.src).origin;
  var MOUNT_TIMEOUT_MS = 15000;

  function mountCardForm(target, options) {
    var container = typeof target === 'string' ? document.querySelector(target) : target;
    if (!container) throw new Error(`Payrail.mountCardForm: no element ${target}`);
    if (!options || typeof options.tokenizationToken !== 'string') throw new Error('Payrail.mountCardForm: options.tokenizationToken is required');

    var iframe = document.createElement('iframe');
    iframe.src = `${payrailOrigin}/hosted/card-form?token=${encodeURIComponent(options.tokenizationToken)}&origin=${encodeURIComponent(window.location.origin)}`;
    iframe.title = 'Card details';
    iframe.setAttribute('scrolling', 'no');
    iframe.style.border = '0';
    iframe.style.width = '100%';
    iframe.style.height = `${options.height || 170}px`;

    var waiting = {};
    var nextId = 1;
    var markReady;
    var ready = new Promise((resolve, reject) => {
      markReady = resolve;
      setTimeout(() => {
        reject(new Error('the Payrail card form did not load'));
      }, MOUNT_TIMEOUT_MS);
    });

    function onMessage(event) {
      if (event.origin !== payrailOrigin || event.source !== iframe.contentWindow) return;
      var data = event.data;
      if (data?.payrail !== 1) return;
      if (data.type === 'ready') {
        markReady();
      } else if (data.type === 'result') {
        const outcome = { ok: data.ok === true, result: data.result, error: data.error };
        if (data.id !== null && waiting[data.id]) {
          waiting[data.id](outcome);
          delete waiting[data.id];
        } else if (typeof options.onResult === 'function') {
          // The customer pressed Enter inside the form.
          options.onResult(outcome);
        }
      }
    }
    window.addEventListener('message', onMessage);
    container.appendChild(iframe);

    return {
      tokenize: () =>
        ready.then(
          () =>
            new Promise((resolve) => {
              var id = nextId++;
              waiting[id] = resolve;
              iframe.contentWindow.postMessage({ payrail: 1, type: 'tokenize', id: id }, payrailOrigin);
            }),
        ),
      destroy: () => {
        window.removeEventListener('message', onMessage);
        iframe.remove();
      },
    };
  }

  window.Payrail = { mountCardForm: mountCardForm };
})();
