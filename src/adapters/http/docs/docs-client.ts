// What the browser runs and shows at /docs besides Swagger UI itself: served as files from the
// service's own origin, so the page's Content-Security-Policy needs no inline script or style.

/**
 * Starts Swagger UI on the served OpenAPI document. The browser's JSON parser rounds integers
 * beyond 2^53 (9007199254740993 becomes ...992) in every example Swagger UI fills in, so the
 * document is read with lossless-json: such integers pass through Swagger UI as marked strings
 * and are written back as plain digits in each example it generates. What a user types is sent
 * as typed.
 */
export const DOCS_SCRIPT = String.raw`'use strict';
(function () {
  // WORD JOINER: invisible, and never the first character of a real example.
  var MARK = '\u2060';
  var MARKED = /"\u2060(-?[0-9]+)"/g;
  var json = window.LosslessJSON;

  function markUnsafeIntegers(text) {
    try {
      return json.stringify(
        json.parse(text, null, function (digits) {
          return json.isSafeNumber(digits) ? Number(digits) : MARK + digits;
        }),
      );
    } catch (error) {
      return text; // not JSON: Swagger UI reports what it cannot read
    }
  }

  function unmark(text) {
    return typeof text === 'string' ? text.replace(MARKED, '$1') : text;
  }

  function ExactIntegers() {
    return {
      statePlugins: {
        spec: {
          wrapActions: {
            updateSpec: function (original) {
              return function (text) {
                return original(typeof text === 'string' ? markUnsafeIntegers(text) : text);
              };
            },
          },
        },
      },
      afterLoad: function () {
        var sample = this.fn.getSampleSchema;
        this.fn.getSampleSchema = function () {
          return unmark(sample.apply(null, arguments));
        };
      },
    };
  }

  // Swagger UI leaves these form controls without a name that screen readers could announce.
  var UNNAMED = [
    ['#servers', 'Server'],
    ['select.content-type', 'Media type'],
    ['.examples-select-element', 'Example'],
    ['textarea.body-param__text', 'Request body (JSON)'],
  ];
  var root = document.getElementById('docs');
  new MutationObserver(function () {
    UNNAMED.forEach(function (rule) {
      root.querySelectorAll(rule[0] + ':not([aria-label])').forEach(function (control) {
        control.setAttribute('aria-label', rule[1]);
      });
    });
  }).observe(root, { childList: true, subtree: true });

  window.ui = window.SwaggerUIBundle({
    url: root.getAttribute('data-openapi'),
    dom_id: '#docs',
    presets: [window.SwaggerUIBundle.presets.apis],
    plugins: [ExactIntegers],
    layout: 'BaseLayout',
    deepLinking: true,
    tryItOutEnabled: true,
    displayRequestDuration: true,
    validatorUrl: 'none',
    persistAuthorization: false,
    defaultModelsExpandDepth: 0,
  });
})();
`;

/** Adjustments to Swagger UI's stylesheet: WCAG AA contrast, a visible focus, room at phone width. */
export const DOCS_STYLE = `body { margin: 0; background: #fff; }
.swagger-ui .info { margin: 24px 0; }
.swagger-ui .info .title small { vertical-align: middle; }
.swagger-ui .info .title small pre.version { background: #5c6370; }
.swagger-ui .info .title small.version-stamp { background: #3f6b00; }
.swagger-ui .info a, .swagger-ui .info .url { color: #1d62b8; }
.swagger-ui .opblock.opblock-get .opblock-summary-method { background: #1f6fbf; }
.swagger-ui .opblock.opblock-post .opblock-summary-method { background: #137a4a; }
.swagger-ui .opblock.opblock-delete .opblock-summary-method { background: #c81e1e; }
.swagger-ui .btn.try-out__btn.cancel { color: #c62828; border-color: #c62828; }
.swagger-ui .btn.execute { background: #1d62b8; border-color: #1d62b8; }
.swagger-ui .btn.authorize { color: #1f6f43; border-color: #1f6f43; }
.swagger-ui .btn.authorize svg { fill: #1f6f43; }
/* JSON numbers of the examples: Swagger UI's highlighter colours them inline. */
.swagger-ui .microlight span[style*="211, 99, 99"] { color: #ff9b9b !important; }
.swagger-ui :focus-visible { outline: 3px solid #1f6f43; outline-offset: 2px; }
@media (max-width: 600px) {
  .swagger-ui .wrapper { padding: 0 10px; }
  .swagger-ui .opblock-tag { flex-wrap: wrap; }
  .swagger-ui .opblock-tag small { flex: 1 1 100%; order: 3; padding: 0 0 8px; }
  .swagger-ui .opblock .opblock-summary { flex-wrap: wrap; }
  /* Tables become one cell under the other, each the full width of the screen. */
  .swagger-ui table, .swagger-ui table tbody, .swagger-ui table tr, .swagger-ui table td {
    display: block; width: auto; max-width: 100%;
  }
  .swagger-ui table thead, .swagger-ui .response-col_links { display: none; }
  .swagger-ui .response-controls { flex-wrap: wrap; }
}
`;

/** The service's own icon: a leaf. */
export const FAVICON_SVG = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32">
<rect width="32" height="32" rx="7" fill="#1f6f43"/>
<path d="M8 24c0-10 6-16 16-16 0 10-6 16-16 16z" fill="#c8f2d6"/>
<path d="M9 23l10-10" stroke="#1f6f43" stroke-width="2" stroke-linecap="round"/>
</svg>
`;
