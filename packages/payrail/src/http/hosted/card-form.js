// Runs inside the hosted card form (an iframe served by Payrail). Card data
// stays in this frame: it goes only to Payrail's tokenization endpoint, and
// the merchant's page (the parent frame) receives only the nonce, the card
// brand, the last four digits and the expiry, by postMessage to the one
// origin the form was opened for.
(() => {
  var form = document.getElementById('card-form');
  var numberInput = document.getElementById('card-number');
  var expiryInput = document.getElementById('card-expiry');
  var cvvInput = document.getElementById('card-cvv');
  var errorText = document.getElementById('card-error');
  var token = form.getAttribute('data-token');
  var parentOrigin = form.getAttribute('data-origin');
  var busy = false;

  function send(message) {
    message.payrail = 1;
    window.parent.postMessage(message, parentOrigin);
  }

  function digitsOf(value) {
    return value.replace(/[\s-]/g, '');
  }

  function luhnValid(digits) {
    var sum = 0;
    var double = false;
    for (let i = digits.length - 1; i >= 0; i--) {
      let value = digits.charCodeAt(i) - 48;
      if (double) {
        value *= 2;
        if (value > 9) value -= 9;
      }
      sum += value;
      double = !double;
    }
    return sum % 10 === 0;
  }

  function showError(input, message) {
    [numberInput, expiryInput, cvvInput].forEach((field) => {
      field.setAttribute('aria-invalid', field === input ? 'true' : 'false');
    });
    errorText.textContent = message;
  }

  // Quick checks for the customer's sake; Payrail checks everything again.
  function readCard() {
    var number = digitsOf(numberInput.value);
    if (!/^[0-9]{12,19}$/.test(number) || !luhnValid(number)) return { problem: 'Check the card number.', input: numberInput };
    var expiry = /^\s*([0-9]{1,2})\s*\/\s*([0-9]{2}|[0-9]{4})\s*$/.exec(expiryInput.value);
    if (expiry === null) return { problem: 'Enter the expiry as MM/YY.', input: expiryInput };
    var month = Number(expiry[1]);
    var year = expiry[2].length === 2 ? 2000 + Number(expiry[2]) : Number(expiry[2]);
    if (month < 1 || month > 12) return { problem: 'The expiry month must be 01 to 12.', input: expiryInput };
    var cvv = cvvInput.value.trim();
    if (!/^[0-9]{3,4}$/.test(cvv)) return { problem: 'Check the security code.', input: cvvInput };
    return { card: { card_number: number, expiry_month: month, expiry_year: year, cvv2: cvv } };
  }

  function tokenize() {
    if (busy) return Promise.resolve({ ok: false, error: { code: 'busy', message: 'The card is already being submitted.' } });
    var read = readCard();
    if (read.problem) {
      showError(read.input, read.problem);
      return Promise.resolve({ ok: false, error: { code: 'invalid_card', message: read.problem } });
    }
    busy = true;
    showError(null, '');
    return fetch('/api/v2/tokens', {
      method: 'POST',
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
      body: JSON.stringify(read.card),
      credentials: 'omit',
    })
      .then((response) =>
        response.json().then((body) => {
          if (response.ok) {
            form.reset();
            return {
              ok: true,
              result: {
                nonce: body.nonce,
                expires_at: body.expires_at,
                card_type: body.card_type,
                last_4: body.last_4,
                expiry_month: read.card.expiry_month,
                expiry_year: read.card.expiry_year,
              },
            };
          }
          var error = body?.error ? body.error : { code: 'error', message: 'The card could not be read.' };
          showError(error.code === 'invalid_card' ? numberInput : null, error.message);
          return { ok: false, error: { code: error.code, message: error.message } };
        }),
      )
      .catch(() => {
        showError(null, 'Could not reach the payment service. Try again.');
        return { ok: false, error: { code: 'network_error', message: 'Could not reach the payment service.' } };
      })
      .then((outcome) => {
        busy = false;
        return outcome;
      });
  }

  function reply(id, outcome) {
    send({ type: 'result', id: id, ok: outcome.ok, result: outcome.result || null, error: outcome.error || null });
  }

  window.addEventListener('message', (event) => {
    // Only the page this form was opened for may ask it to tokenize.
    if (event.origin !== parentOrigin || event.source !== window.parent) return;
    var data = event.data;
    if (data?.payrail !== 1 || data.type !== 'tokenize') return;
    tokenize().then((outcome) => {
      reply(data.id, outcome);
    });
  });

  form.addEventListener('submit', (event) => {
    event.preventDefault();
    tokenize().then((outcome) => {
      reply(null, outcome);
    });
  });

  numberInput.addEventListener('input', () => {
    var digits = digitsOf(numberInput.value)
      .replace(/[^0-9]/g, '')
      .slice(0, 19);
    var grouped = digits.replace(/(.{4})(?=.)/g, '$1 ');
    if (grouped !== numberInput.value) numberInput.value = grouped;
  });

  send({ type: 'ready', height: document.documentElement.scrollHeight });
})();
