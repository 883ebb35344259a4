/**
 * Whether this bench file is the entry being run. scripts/run-ts.mjs bundles the entry to
 * .tmp/<name>.mjs, and a bundle shares one import.meta.url across all its modules, so the usual
 * `import.meta.url === argv[1]` check is true for every bench module bundled into bench/index.ts.
 */
export const isMain = (name: string) => /[\\/]([^\\/]+)\.mjs$/.exec(process.argv[1] ?? "")?.[1] === name;
