import nextCoreWebVitals from "eslint-config-next/core-web-vitals";
import nextTypescript from "eslint-config-next/typescript";
import prettier from "eslint-config-prettier";

const config = [
  ...nextCoreWebVitals,
  ...nextTypescript,
  {
    ignores: [
      "node_modules/**",
      ".next/**",
      ".next-*/**",
      ".data/**",
      "lib/generated/**",
      "next-env.d.ts",
      "docs/**",
      "coverage/**",
      "bench/results/**",
      "tests/unit/architecture/fixture/**",
      "tmp/**",
    ],
  },
  {
    // Test helpers such as useFreshPostgres() are not React hooks; tests read free-form JSON bodies.
    files: ["tests/**", "scripts/**", "bench/**"],
    rules: { "react-hooks/rules-of-hooks": "off", "@typescript-eslint/no-explicit-any": "off" },
  },
  {
    // CommonJS on purpose: what an unsupported Node must still be able to run (scripts/node-version.cjs).
    files: ["**/*.cjs"],
    rules: { "@typescript-eslint/no-require-imports": "off" },
  },
  {
    rules: {
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
    },
  },
  // Formatting is Prettier's (npm run format; checked by npm run lint): no stylistic rule competes with it.
  prettier,
];

export default config;
