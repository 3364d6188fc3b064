// The hosted checkout page's only script: no build step, no library. It talks to paygate through the checkout
// calls (public key + client secret) on this page's own origin, and to the card provider's library when a card is
// used. Money is handled as decimal strings and BigInt minor units, never as floating point numbers.
(() => {
  "use strict";
  const script = document.currentScript;
  const cfg = JSON.parse(document.getElementById("checkout-config").textContent);
  const $ = (id) => document.getElementById(id);
  const POLL_CRYPTO_MS = 10000;
  const POLL_CARD_MS = 3000;
  const link = cfg.link || null;
  const state = {
    intentId: cfg.payment_intent_id || "", clientSecret: cfg.client_secret || "",
    publicKey: cfg.public_key || (link && link.public_key) || "",
    returnUrl: cfg.return_url || (link && link.return_url) || "",
    livemode: link ? !!link.livemode : !!cfg.livemode,
    merchantId: link ? link.merchant_id : cfg.merchant_id,
    variantId: link ? link.default_variant_id : "", planId: "", quantity: 1, addons: {},
    email: "", codeSent: false, assets: {}, charge: null, pollTimer: 0, pollMs: POLL_CRYPTO_MS, tickTimer: 0,
    done: false, renewing: false,
  };
  const authKey = link ? `paygate:auth:${link.id}` : "";
  // Session storage keeps the sign-in across a reload; a framed page may be refused it (third-party storage):
  // then it lives as long as the page.
  const memory = new Map();
  const store = {
    get(k) { try { return window.sessionStorage.getItem(k); } catch (_) { return memory.has(k) ? memory.get(k) : null; } },
    set(k, v) { try { window.sessionStorage.setItem(k, v); } catch (_) { memory.set(k, v); } },
    remove(k) { try { window.sessionStorage.removeItem(k); } catch (_) { memory.delete(k); } },
  };

  // ------------------------------------------------------------------ decimals (strings ⇄ BigInt minor units)
  function toUnits(text, scale) {
    const [whole, frac = ""] = String(text).split(".");
    return BigInt(whole || "0") * 10n ** BigInt(scale) + BigInt((frac + "0".repeat(scale)).slice(0, scale) || "0");
  }
  function fromUnits(units, scale) {
    const neg = units < 0n; let s = (neg ? -units : units).toString().padStart(scale + 1, "0");
    const out = scale ? `${s.slice(0, -scale)}.${s.slice(-scale)}` : s;
    return (neg ? "-" : "") + out;
  }
  const scaleOf = (text) => (String(text).split(".")[1] || "").length;
  function money(amount, currency) {
    const scale = Math.max(2, scaleOf(amount));
    return `${fromUnits(toUnits(amount, scale), scale)} ${currency}`;
  }

  // ------------------------------------------------------------------ parent window messages
  const embedded = window.parent !== window;
  function parentOrigin() {
    try { if (state.returnUrl) return new URL(state.returnUrl).origin; } catch (_) { /* not a URL */ }
    return state.livemode ? "" : "*";  // any origin only in test mode
  }
  function post(type, extra) {
    const origin = parentOrigin();
    if (embedded && origin) window.parent.postMessage(Object.assign({ type }, extra || {}), origin);
  }
  let lastHeight = 0;
  function reportHeight() {
    const height = Math.ceil(document.documentElement.scrollHeight);
    if (height !== lastHeight) { lastHeight = height; post("resize", { height }); }
  }
  function fail(message) {
    const banner = $("error");
    banner.textContent = message; banner.hidden = !message;
    if (message) post("error", { message });
  }

  // ------------------------------------------------------------------ the API
  class ApiError extends Error {
    constructor(status, code, message) { super(message); this.status = status; this.code = code; }
    get field() { return (this.message.match(/^([a-z_.\[\]0-9]+):/) || [])[1] || ""; }
  }
  async function api(method, path, body) {
    const init = { method, headers: {}, credentials: "omit", cache: "no-store" };
    if (body !== undefined) { init.headers["Content-Type"] = "application/json"; init.body = JSON.stringify(body); }
    let response;
    try { response = await fetch(path, init); } catch (_) {
      throw new ApiError(0, "network", "No connection to the payment service. Check your connection and retry.");
    }
    let envelope = null;
    try { envelope = await response.json(); } catch (_) { /* not JSON */ }
    if (!envelope || envelope.code !== 0) {
      const msg = envelope ? envelope.msg : `The payment service answered ${response.status}.`;
      throw new ApiError(response.status, envelope ? envelope.error_code : "server_error", msg);
    }
    return envelope.data;
  }
  const creds = () => ({ key: state.publicKey, client_secret: state.clientSecret });
  const readIntent = () => api("POST", `/payment_intents/link/${state.intentId}`, creds());
  const updateIntent = (extra) => api("POST", `/payment_intents/link/${state.intentId}/update`,
    Object.assign(creds(), extra));

  // ------------------------------------------------------------------ what is bought
  const variants = () => (link ? link.primary_variants || [] : []);
  const variant = () => variants().find((v) => v.variant_id === state.variantId) || variants()[0];
  function planOf(v) { return (v.selling_plans || []).find((p) => p.id === state.planId); }
  function unitPrice(v) {
    const plan = planOf(v);
    const tier = plan && (plan.pricing_tiers || [])[0];
    return tier ? tier.subtotal_after_policy : v.price.amount;
  }
  function cycleText(plan) {
    const n = plan.billing_cycle_interval || 1; const unit = plan.billing_cycle || "month";
    return n === 1 ? `every ${unit}` : `every ${n} ${unit}s`;
  }
  function choice(container, checked, disabled, title, note, price, onPick) {
    const b = document.createElement("button");
    b.type = "button"; b.className = "choice"; b.setAttribute("role", "radio");
    b.setAttribute("aria-checked", String(checked)); b.disabled = disabled;
    if (disabled) b.classList.add("sold-out");
    const left = document.createElement("span"); left.textContent = title;
    if (note) { const s = document.createElement("small"); s.textContent = note; left.appendChild(s); }
    const right = document.createElement("span"); right.className = "price"; right.textContent = price;
    b.append(left, right); b.addEventListener("click", onPick); container.appendChild(b);
  }
  function renderOrder() {
    if (!link) return;
    $("product-description").textContent = (link.product && link.product.description) || "";
    const list = variants();
    const vbox = $("variants"); vbox.replaceChildren();
    $("variant-field").hidden = list.length < 2;
    for (const v of list) {
      choice(vbox, v.variant_id === state.variantId, !v.available, v.title, v.available ? "" : "Sold out",
        money(v.price.amount, v.price.currency), () => { state.variantId = v.variant_id; state.planId = ""; renderOrder(); });
    }
    const v = variant();
    const plans = (v && v.selling_plans) || [];
    const pbox = $("plans"); pbox.replaceChildren();
    $("plan-field").hidden = plans.length === 0;
    if (plans.length) {
      choice(pbox, !state.planId, false, "One-time purchase", "", money(v.price.amount, v.price.currency),
        () => { state.planId = ""; renderOrder(); });
      for (const p of plans) {
        const tier = (p.pricing_tiers || [])[0];
        const note = [cycleText(p), p.trial_period_days ? `${p.trial_period_days}-day free trial` : ""].filter(Boolean).join(" · ");
        choice(pbox, state.planId === p.id, false, p.name, note,
          money(tier ? tier.subtotal_after_policy : v.price.amount, v.price.currency), () => { state.planId = p.id; renderOrder(); });
      }
    }
    $("quantity-field").hidden = false;
    $("quantity").value = String(state.quantity);
    renderAddons();
    renderTotal();
    reportHeight();
  }
  function renderAddons() {
    const box = $("addons"); box.replaceChildren();
    for (const a of link.addon_variants || []) {
      const id = `addon-${a.variant.variant_id}`;
      if (!(a.variant.variant_id in state.addons)) state.addons[a.variant.variant_id] = a.min_quantity || 0;
      const row = document.createElement("div"); row.className = "field row";
      const label = document.createElement("label"); label.htmlFor = id;
      label.textContent = `${a.variant.title} (+${money(a.variant.price.amount, a.variant.price.currency)})`;
      const input = document.createElement("input"); input.id = id; input.type = "number"; input.inputMode = "numeric";
      input.min = String(a.min_quantity || 0); input.max = String(a.max_quantity || 1);
      input.value = String(state.addons[a.variant.variant_id]); input.style.width = "80px";
      input.addEventListener("change", () => {
        const n = Math.max(a.min_quantity || 0, Math.min(a.max_quantity || 1, parseInt(input.value, 10) || 0));
        state.addons[a.variant.variant_id] = n; input.value = String(n); renderTotal();
      });
      row.append(label, input); box.appendChild(row);
    }
  }
  function renderTotal() {
    const v = variant(); if (!v) return;
    const lines = []; const currency = v.price.currency;
    const unit = unitPrice(v); const scale = Math.max(2, scaleOf(unit));
    let total = toUnits(unit, scale) * BigInt(state.quantity);
    const plan = planOf(v);
    lines.push([`${v.title} × ${state.quantity}${plan ? ` · ${plan.name}` : ""}`, fromUnits(total, scale)]);
    for (const a of link.addon_variants || []) {
      const q = state.addons[a.variant.variant_id] || 0; if (!q) continue;
      const s = Math.max(scale, scaleOf(a.variant.price.amount));
      const line = toUnits(a.variant.price.amount, s) * BigInt(q);
      total = total * 10n ** BigInt(s - scale) + line; // same scale when s == scale
      lines.push([`${a.variant.title} × ${q}`, fromUnits(line, s)]);
    }
    const ul = $("summary"); ul.replaceChildren();
    for (const [name, amount] of lines) {
      const li = document.createElement("li"); const a = document.createElement("span"); const b = document.createElement("span");
      a.textContent = name; b.textContent = `${amount} ${currency}`; li.append(a, b); ul.appendChild(li);
    }
    $("total").textContent = `${fromUnits(total, scale)} ${currency}`;
    const note = $("plan-note");
    note.hidden = !plan;
    if (plan) note.textContent = `Renews ${cycleText(plan)} until you cancel.` +
      (plan.trial_period_days ? ` The first ${plan.trial_period_days} days are free.` : "");
  }
  function setQuantity(n) { state.quantity = Math.max(1, Math.min(99, n || 1)); $("quantity").value = String(state.quantity); renderTotal(); }

  // ------------------------------------------------------------------ who is paying
  function savedAuth() { try { return JSON.parse(store.get(authKey) || "null"); } catch (_) { return null; } }
  function renderIdentity() {
    const saved = savedAuth();
    const signedIn = !!cfg.ephemeral_token || !!saved;
    $("signed-in").hidden = !signedIn; $("email-form").hidden = signedIn; $("code-form").hidden = signedIn || !state.codeSent;
    $("signed-in-text").textContent = cfg.ephemeral_token ? `Signed in through ${link.merchant_name}.` :
      saved ? `Signed in as ${saved.email || "a returning customer"}.` : "";
    $("sign-out").hidden = !!cfg.ephemeral_token;
    reportHeight();
  }
  async function sendCode(event) {
    if (event) event.preventDefault();
    $("email-error").textContent = "";
    const email = $("email").value.trim();
    if (!/^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(email)) { $("email-error").textContent = "Enter a valid e-mail address."; return; }
    $("send-code").disabled = true;
    try {
      await api("POST", "/checkout/verification_codes", { key: state.publicKey, payment_link_id: link.id, email });
      state.email = email; state.codeSent = true;
      $("code-email").textContent = email; $("code-form").hidden = false; $("code").focus();
    } catch (e) {
      $("email-error").textContent = e.message.replace(/^[a-z_]+: /, "");
    } finally { $("send-code").disabled = false; reportHeight(); }
  }
  async function startCheckout() {
    fail(""); $("code-error").textContent = "";
    const body = { key: state.publicKey, payment_link_id: link.id, product_version: link.product_version,
      primary_variant: { variant_id: state.variantId, quantity: state.quantity, selling_plan_id: state.planId },
      addons: Object.entries(state.addons).filter(([, q]) => q > 0).map(([variant_id, quantity]) => ({ variant_id, quantity })) };
    // Editing the order replaces the checkout started before, whose stock is then this one's (if nothing was paid yet).
    if (state.intentId) Object.assign(body, { replaces_payment_intent_id: state.intentId, replaces_client_secret: state.clientSecret });
    const saved = savedAuth();
    if (cfg.ephemeral_token) body.ephemeral_token = cfg.ephemeral_token;
    else if (saved) body.auth_token = saved.auth_token;
    else {
      if (!state.codeSent) { $("email-error").textContent = "Enter your e-mail and ask for a code first."; return; }
      const code = $("code").value.trim();
      if (!/^[0-9]{6}$/.test(code)) { $("code-error").textContent = "Enter the 6 digits of the code."; return; }
      body.email = state.email; body.verification_code = code;
    }
    $("continue").disabled = true;
    try {
      const s = await api("POST", "/checkout/sessions", body);
      cfg.ephemeral_token = "";  // single use: spent now
      if (s.auth_token) store.set(authKey, JSON.stringify({ auth_token: s.auth_token, email: s.email }));
      Object.assign(state, { intentId: s.payment_intent_id, clientSecret: s.client_secret, customerId: s.customer_id,
        publicKey: s.public_key || state.publicKey, returnUrl: s.return_url || state.returnUrl });
      setOrderLocked(true);
      await showPay();
    } catch (e) {
      if (e.field === "verification_code") $("code-error").textContent = e.message.replace(/^verification_code: /, "");
      else if (e.field === "auth_token" || e.field === "ephemeral_token") { store.remove(authKey); cfg.ephemeral_token = ""; renderIdentity(); fail(e.message.replace(/^[a-z_]+: /, "")); }
      else fail(e.message);
    } finally { $("continue").disabled = false; reportHeight(); }
  }
  function setOrderLocked(locked) {
    $("step-order").classList.toggle("locked", locked);
    for (const el of $("order-choices").querySelectorAll("button, input")) el.disabled = locked;
    $("step-identity").hidden = locked || !link; $("edit-order").hidden = !locked || !link;
  }

  // ------------------------------------------------------------------ paying
  async function showPay() {
    $("step-pay").hidden = false;
    const methods = (link ? link.payment_method_types : cfg.payment_method_types) || [];
    if (script.dataset.cardJs && methods.includes("cards")) $("tab-card").hidden = false;
    $("method-tabs").hidden = $("tab-card").hidden;  // one method: no tabs to choose from
    await loadAssets();
    const intent = await readIntent().catch(handleSessionError);
    if (intent) onIntent(intent, true);
    schedulePoll(POLL_CRYPTO_MS);
    reportHeight();
  }
  async function loadAssets() {
    const data = await api("GET", `/merchants/${encodeURIComponent(state.merchantId)}/assets?key=${encodeURIComponent(state.publicKey)}`);
    const list = Array.isArray(data) ? data : data.assets || [];
    const allowed = link && (link.asset_ids || []).length ? new Set(link.asset_ids) : null;
    const select = $("asset"); select.replaceChildren();
    for (const a of list) {
      if (a.is_fiat || !a.payable || (allowed && !allowed.has(a.id))) continue;
      state.assets[a.id] = a;
      const o = document.createElement("option"); o.value = a.id;
      o.textContent = `${a.token || a.coin} · ${a.display_name} (${a.network})`; select.appendChild(o);
    }
    $("get-quote").disabled = select.options.length === 0;
    if (!select.options.length) $("get-quote").textContent = "No crypto asset can be paid right now";
  }
  function handleSessionError(e) {
    if (e.code === "ErrStatusUnexpected") { showEnded(); return null; }
    fail(e.message); return null;
  }
  function showEnded() {
    stopTimers(); $("step-pay").hidden = true; $("step-identity").hidden = true; $("step-expired").hidden = false;
    post("error", { message: "the payment session has expired or was canceled" }); reportHeight();
  }
  function stopTimers() { clearTimeout(state.pollTimer); clearInterval(state.tickTimer); }
  function schedulePoll(ms) {
    // The pace is the page's, not the timer's: a read in flight when the card step sets 3 s goes on at 3 s.
    state.pollMs = ms;
    clearTimeout(state.pollTimer);
    state.pollTimer = setTimeout(async () => {
      const intent = await readIntent().catch((e) => (e.code === "ErrStatusUnexpected" ? handleSessionError(e) : null));
      if (intent) onIntent(intent, false);
      if (!state.done && $("step-expired").hidden) schedulePoll(state.pollMs);
    }, ms);
  }
  async function chooseCrypto() {
    const assetId = $("asset").value; if (!assetId) return;
    $("get-quote").disabled = true; fail("");
    try {
      const intent = await updateIntent({ payment_method_type: "crypto", payment_method_options: { crypto: { asset_id: assetId } } });
      onIntent(intent, true);
    } catch (e) { handleSessionError(e); } finally { $("get-quote").disabled = false; reportHeight(); }
  }
  function latestCharge(intent, type) {
    const charges = (intent.charges || []).filter((c) => !type || c.payment_method_type === type);
    return charges.sort((a, b) => (a.created || 0) - (b.created || 0))[charges.length - 1] || null;
  }
  function onIntent(intent, fresh) {
    if (state.done) return;
    if (intent.status === "Success" || intent.status === "Completed" || intent.status === "Confirmed") { succeed(intent); return; }
    if (intent.status === "Canceled") { showEnded(); return; }
    const card = latestCharge(intent, "cards");
    if (card && state.cardPending) onCardCharge(card);
    const charge = latestCharge(intent, "crypto");
    const crypto = charge && charge.payment_method_options && charge.payment_method_options.crypto;
    if (!crypto || !crypto.deposit_address) return;
    if (fresh || !state.charge || state.charge.id !== charge.id) showQuote(charge, crypto);
    showProgress(charge);
  }
  function showQuote(charge, crypto) {
    state.charge = charge;
    const asset = state.assets[crypto.asset_id] || { decimals: crypto.decimals, chain_id: 0, contract_address: "" };
    $("asset-choice").hidden = true; $("quote").hidden = false;
    $("pay-amount").value = `${crypto.amount} ${crypto.token}`;
    $("pay-amount").dataset.value = crypto.amount;
    $("pay-address").textContent = crypto.deposit_address;
    $("pay-network").textContent = (asset.display_name ? `${crypto.network}` : crypto.network);
    $("rate").textContent = crypto.exchange_rate ? `Rate: 1 ${crypto.token} = ${crypto.exchange_rate} ${charge.currency || ""}`.trim() : "";
    // The URI is the network's rail's (EIP-681, BIP-21): the page draws and links it, never builds one.
    const uri = crypto.payment_uri || "";
    $("qr").hidden = !uri; $("open-wallet").hidden = !uri;
    if (uri) {
      $("qr").src = `${script.dataset.static.replace(/\/static$/, "")}/qr.svg?data=${encodeURIComponent(uri)}`;
      $("open-wallet").href = uri;
    } else {
      $("qr").removeAttribute("src"); $("open-wallet").removeAttribute("href");
    }
    $("qr").dataset.uri = uri;
    clearInterval(state.tickTimer);
    const tick = () => countdown(crypto.expired_at);
    tick(); state.tickTimer = setInterval(tick, 1000);
    reportHeight();
  }
  function countdown(expiresAt) {
    const left = expiresAt - Math.floor(Date.now() / 1000);
    const seen = state.charge && (state.charge.transactions || []).length > 0;
    if (seen) { $("countdown").textContent = ""; return; }
    if (left > 0) {
      const m = Math.floor(left / 60); const s = String(left % 60).padStart(2, "0");
      $("countdown").textContent = `This price holds for ${m}:${s}`;
      return;
    }
    $("countdown").textContent = "This price expired. Getting a new one…";
    if (!state.renewing) {
      state.renewing = true;
      updateIntent({ payment_method_type: "crypto", payment_method_options: { crypto: { asset_id: state.charge.payment_method_options.crypto.asset_id } } })
        .then((intent) => onIntent(intent, true)).catch(handleSessionError).finally(() => { state.renewing = false; });
    }
  }
  function showProgress(charge) {
    state.charge = charge;
    const txs = charge.transactions || [];
    const t = txs[txs.length - 1];
    const steps = ["p-wait", "p-seen", "p-confirming", "p-confirmed"];
    let at = 0;
    if (t) at = t.status === "confirmed" ? 3 : t.status === "confirming" ? 2 : 1;
    steps.forEach((id, i) => { $(id).className = i < at ? "is-done" : i === at ? "is-active" : ""; });
    $("confirmations").textContent = t && t.confirmations_required ? `${Math.min(t.confirmations || 0, t.confirmations_required)}/${t.confirmations_required}` : "";
    if (t) $("countdown").textContent = "";
    if (charge.status === "Failed") fail(charge.failure_message || "This payment attempt failed. Choose an asset to try again.");
  }
  function succeed(intent) {
    state.done = true; stopTimers();
    for (const id of ["step-pay", "step-identity"]) $(id).hidden = true;
    setOrderLocked(true); $("edit-order").hidden = true;
    $("step-done").hidden = false;
    post("success", { intent });
    if (!embedded && state.returnUrl) {
      $("done-redirect").hidden = false;
      setTimeout(() => window.location.assign(state.returnUrl), 1500);
    }
    reportHeight();
  }

  // ------------------------------------------------------------------ cards (provider_a's browser library)
  let stripe = null; let cardElement = null; let savedMethodId = "";
  function loadCardLibrary() {
    return new Promise((resolve, reject) => {
      if (window.Stripe) { resolve(); return; }
      const s = document.createElement("script");
      s.src = script.dataset.cardJs; s.nonce = script.nonce; s.onload = () => resolve();
      s.onerror = () => reject(new Error("The card form could not be loaded."));
      document.head.appendChild(s);
    });
  }
  async function showCard() {
    selectTab("card");
    if (cardElement) return;
    try {
      await loadCardLibrary();
      // The provider's publishable key comes with a card charge (provider_a_payload.public_key): open one.
      const intent = await updateIntent({ payment_method_type: "cards", payment_method_options: { fiat: { currency: "" } } });
      const charge = latestCharge(intent, "cards");
      const payload = (charge && charge.provider_a_payload) || {};
      stripe = window.Stripe(payload.public_key);
      cardElement = stripe.elements().create("card");
      cardElement.mount("#card-element");
      await loadSavedCards();
    } catch (e) { $("card-error").textContent = e.message; }
    reportHeight();
  }
  async function loadSavedCards() {
    $("saved-cards").hidden = true;
    if (!state.customerId) return;  // a shopper who did not sign in has no saved cards
    try {
      const q = new URLSearchParams({ key: state.publicKey, client_secret: state.clientSecret, customer_id: state.customerId });
      const data = await api("GET", `/customers/payment_methods/public/list?${q}`);
      const box = $("saved-list"); box.replaceChildren();
      for (const m of data.payment_methods || []) {
        const brand = m.brand ? m.brand[0].toUpperCase() + m.brand.slice(1) : "Card";
        choice(box, false, false, `${brand} •••• ${m.last4}`,
          m.exp_month ? `Expires ${String(m.exp_month).padStart(2, "0")}/${m.exp_year}` : "", "", (event) => {
            savedMethodId = savedMethodId === m.id ? "" : m.id;
            for (const b of box.children) b.setAttribute("aria-checked", String(b === event.currentTarget && !!savedMethodId));
            $("new-card").hidden = !!savedMethodId; reportHeight();
          });
      }
      $("saved-cards").hidden = !box.children.length;
    } catch (_) { $("saved-cards").hidden = true; }
  }
  async function payCard() {
    $("card-error").textContent = ""; $("pay-card").disabled = true;
    try {
      const fiat = { currency: "" };
      if (savedMethodId) fiat.payment_method_id = savedMethodId;
      else {
        const result = await stripe.createToken(cardElement);
        if (result.error) throw new Error(result.error.message);
        fiat.token = result.token.id; fiat.save_payment_method = $("save-card").checked;
      }
      const intent = await updateIntent({ payment_method_type: "cards", payment_method_options: { fiat } });
      state.cardPending = true; $("card-status").textContent = "Processing your card…";
      const charge = latestCharge(intent, "cards");
      const payload = (charge && charge.provider_a_payload) || {};
      if (payload.status === "requires_action") {
        const r = await stripe.confirmCardPayment(payload.client_secret);
        if (r.error) throw new Error(r.error.message);
      }
      onIntent(intent, false);
      schedulePoll(POLL_CARD_MS);
    } catch (e) { $("card-error").textContent = e.message; state.cardPending = false; $("card-status").textContent = ""; }
    finally { $("pay-card").disabled = false; reportHeight(); }
  }
  function onCardCharge(charge) {
    if (charge.status === "Failed") {
      state.cardPending = false; $("card-status").textContent = "";
      $("card-error").textContent = charge.failure_message || "Your card was declined.";
      post("error", { message: $("card-error").textContent });
    }
  }
  function selectTab(which) {
    const crypto = which === "crypto";
    $("tab-crypto").setAttribute("aria-selected", String(crypto)); $("tab-card").setAttribute("aria-selected", String(!crypto));
    $("pane-crypto").hidden = !crypto; $("pane-card").hidden = crypto; reportHeight();
  }

  // ------------------------------------------------------------------ copy buttons
  async function copy(button) {
    const field = $(button.dataset.copy);
    const value = field.dataset.value || field.value || field.textContent;
    try { await navigator.clipboard.writeText(value); } catch (_) {
      const range = document.createRange(); range.selectNodeContents(field);
      const selection = window.getSelection(); selection.removeAllRanges(); selection.addRange(range);
      if (document.execCommand) document.execCommand("copy");
    }
    const was = button.textContent; button.textContent = "Copied"; setTimeout(() => { button.textContent = was; }, 1500);
  }

  // ------------------------------------------------------------------ start
  function wire() {
    $("qty-minus").addEventListener("click", () => setQuantity(state.quantity - 1));
    $("qty-plus").addEventListener("click", () => setQuantity(state.quantity + 1));
    $("quantity").addEventListener("change", () => setQuantity(parseInt($("quantity").value, 10)));
    $("email-form").addEventListener("submit", sendCode);
    $("code-form").addEventListener("submit", (e) => { e.preventDefault(); startCheckout(); });
    $("resend").addEventListener("click", () => sendCode());
    $("continue").addEventListener("click", startCheckout);
    $("sign-out").addEventListener("click", () => { store.remove(authKey); state.codeSent = false; renderIdentity(); });
    $("edit-order").addEventListener("click", () => { stopTimers(); state.charge = null; $("step-pay").hidden = true; $("quote").hidden = true; $("asset-choice").hidden = false; setOrderLocked(false); renderIdentity(); reportHeight(); });
    $("get-quote").addEventListener("click", chooseCrypto);
    $("change-asset").addEventListener("click", () => { $("quote").hidden = true; $("asset-choice").hidden = false; clearInterval(state.tickTimer); reportHeight(); });
    $("tab-crypto").addEventListener("click", () => selectTab("crypto"));
    $("tab-card").addEventListener("click", showCard);
    $("pay-card").addEventListener("click", payCard);
    for (const b of document.querySelectorAll("button.copy")) b.addEventListener("click", () => copy(b));
    if (window.ResizeObserver) new ResizeObserver(reportHeight).observe(document.body);
  }
  async function main() {
    wire();
    post("ready");
    if (link) {
      $("step-identity").hidden = false;
      renderOrder(); renderIdentity();
    } else {
      $("step-order").querySelector("#order-choices").hidden = true;
      try {
        const intent = await readIntent();
        state.customerId = (intent.customer && intent.customer.id) || "";  // an invoice's customer: saved cards
        const details = intent.payment_link_details && intent.payment_link_details.payment_link;
        const items = (details && details.product_items) || [];
        $("order-title").textContent = (details && details.product && details.product.name) || intent.description || `Payment to ${cfg.merchant_name}`;
        const ul = $("summary");
        for (const it of items) {
          const li = document.createElement("li"); const a = document.createElement("span"); const b = document.createElement("span");
          a.textContent = `${it.variant_title} × ${it.quantity}`; b.textContent = money(it.price.amount, it.price.currency); li.append(a, b); ul.appendChild(li);
        }
        const due = intent.amount || {};
        $("total").textContent = money(due.amount || "0", due.asset_id || intent.currency || "");
        if (intent.status === "Success") { succeed(intent); return; }
        await showPay();
      } catch (e) { handleSessionError(e); }
    }
    reportHeight();
  }
  main();
})();
