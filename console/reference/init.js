// The API reference at /docs (docs/api.md, docs/security.md hardening item 12): Scalar's
// standalone bundle, served from this origin, rendering the Worker's own OpenAPI document. Its
// fonts, telemetry, AI agent and MCP panel are off: each would reach another origin, which the
// page's Content-Security-Policy refuses anyway.
/* global Scalar */
Scalar.createApiReference("#app", {
  url: "/v1/openapi.json",
  withDefaultFonts: false,
  telemetry: false,
  agent: { disabled: true },
  mcp: { disabled: true },
  showDeveloperTools: "never",
});
