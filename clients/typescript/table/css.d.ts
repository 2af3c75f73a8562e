// esbuild bundles the stylesheet imported by main.ts into table.css beside table.js.
declare module "*.css";
