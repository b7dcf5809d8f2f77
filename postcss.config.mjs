/** Tailwind CSS v4 through its PostCSS plugin (Next.js picks this file up). */
const config = {
  plugins: {
    "@tailwindcss/postcss": {},
  },
};

export default config;
