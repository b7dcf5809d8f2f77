// The Node.js versions this app runs on (package.json "engines"), checked before anything else starts:
// npm install refuses others through engine-strict in .npmrc; next dev, next build and npm start
// through this check. Plain CommonJS, so that an old Node can run it and say what is wrong.
"use strict";
const { readFileSync } = require("node:fs");
const path = require("node:path");

/** The lowest supported version, from package.json's engines.node (">=22.13"). */
function minimumNode() {
  const pkg = JSON.parse(readFileSync(path.join(__dirname, "..", "package.json"), "utf8"));
  const m = /^>=\s*(\d+)(?:\.(\d+))?(?:\.(\d+))?$/.exec(String(pkg.engines && pkg.engines.node).trim());
  if (!m) throw new Error(`package.json engines.node must read ">=X.Y", not ${JSON.stringify(pkg.engines && pkg.engines.node)}`);
  return [Number(m[1]), Number(m[2] || 0), Number(m[3] || 0)];
}

/** The one line that says a version is not supported, or null when it is. */
function unsupportedNodeMessage(version, minimum = minimumNode()) {
  const have = String(version).replace(/^v/, "").split(".").map(Number);
  for (let i = 0; i < 3; i++) {
    if ((have[i] || 0) > minimum[i]) return null;
    if ((have[i] || 0) < minimum[i]) {
      const needed = minimum.join(".").replace(/\.0$/, "");
      return `This app needs Node.js ${needed} or newer, and this is Node.js ${have.join(".")}: install Node.js 24 LTS (for example \`nvm install 24\`, or the installer from nodejs.org) and run the command again.`;
    }
  }
  return null;
}

/** Exits with the line when this process's Node is not supported. */
function refuseUnsupportedNode() {
  const message = unsupportedNodeMessage(process.versions.node);
  if (message) {
    console.error(message);
    process.exit(1);
  }
}

module.exports = { minimumNode, unsupportedNodeMessage, refuseUnsupportedNode };

// `node scripts/node-version.cjs` (npm run dev's first step): refuses an unsupported Node in one line.
if (require.main === module) refuseUnsupportedNode();
