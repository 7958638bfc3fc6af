// Checks emails' HTML against caniemail's data (the npm package @jsx-email/doiuse-email).
// Reads [{name, html}] as JSON on stdin; writes {name: {errors, warnings}} as JSON on stdout.
// The package is found through NODE_PATH (the npm cache folder .ci/run fills).
const { doIUseEmail } = require("@jsx-email/doiuse-email");

const clients = JSON.parse(process.argv[2]);
let input = "";
process.stdin.setEncoding("utf8");
process.stdin.on("data", (chunk) => (input += chunk));
process.stdin.on("end", () => {
  const out = {};
  for (const { name, html } of JSON.parse(input)) {
    const result = doIUseEmail(html, { emailClients: clients });
    out[name] = { errors: result.errors || [], warnings: result.warnings || [] };
  }
  process.stdout.write(JSON.stringify(out));
});
