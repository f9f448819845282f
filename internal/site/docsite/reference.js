// Mounts Scalar's API reference (vendor/scalar, loaded just before) on the
// reference page, from this server's /openapi.json. (Not on an element with
// the id "api-reference": Scalar mounts a second reference of its own there,
// with its default configuration.) Everything it would
// fetch from elsewhere is turned off: fonts (the page uses system fonts),
// telemetry, the request proxy (the in-page client calls this origin
// directly, which CORS and the page's connect-src 'self' allow), and the
// hosted AI and MCP features.
Scalar.createApiReference('#reference', {
  url: '/openapi.json',
  slug: 'cardcat',
  title: 'cardcat API',
  // The requests of the in-page client and of the code samples go to the
  // server that serves this page, whatever the document's servers say.
  servers: [{ url: window.location.origin, description: 'this server' }],
  proxyUrl: '',
  withDefaultFonts: false,
  telemetry: false,
  agent: { disabled: true },
  mcp: { disabled: true },
  showDeveloperTools: 'never',
  documentDownloadType: 'direct',
  // The key a reader types is kept in this browser (localStorage) across
  // reloads; it is theirs, and only sent to this server.
  persistAuth: true,
  defaultOpenAllTags: true,
  // The sidebar and the search name each operation by its method and path
  // (GET /{game}/sets); the summary stays the operation's heading.
  operationTitleSource: 'path',
  hideModels: false,
  // The two ways to send a key (docs/api.md, "Authentication"); their names
  // are the document's components.securitySchemes (a test checks them).
  authentication: {
    preferredSecurityScheme: 'ApiKeyAuth',
  },
  // Code samples in curl, JavaScript fetch and Python requests only.
  defaultHttpClient: { targetKey: 'shell', clientKey: 'curl' },
  hiddenClients: {
    shell: ['httpie', 'wget'],
    js: ['axios', 'jquery', 'ofetch', 'xhr'],
    python: ['aiohttp', 'httpx_async', 'httpx_sync', 'python3'],
    c: true, clojure: true, csharp: true, dart: true, fsharp: true, go: true, http: true, java: true,
    julia: true, kotlin: true, node: true, objc: true, ocaml: true, php: true, powershell: true, r: true,
    ruby: true, rust: true, swift: true,
  },
});

// Scalar's key field shows a made-up token as its placeholder, which a
// reader may take for a key to use; say what a key looks like instead.
// (Scalar has no option for it; the field is re-rendered as the reader
// moves between operations, so every rendering is corrected.)
const scalarPlaceholder = 'QUxMIFlPVVIgQkFTRSBBUkUgQkVMT05HIFRPIFVT';
const keyPlaceholder = 'pk_live_...';
function fixKeyPlaceholders(root) {
  for (const el of root.querySelectorAll('[placeholder="' + scalarPlaceholder + '"]')) {
    el.setAttribute('placeholder', keyPlaceholder);
  }
  for (const el of root.querySelectorAll('.cm-placeholder')) {
    if (el.textContent === scalarPlaceholder) el.textContent = keyPlaceholder;
  }
}
new MutationObserver(() => fixKeyPlaceholders(document.body))
  .observe(document.body, { childList: true, subtree: true, characterData: true });
fixKeyPlaceholders(document.body);
