// Types of scripts/pack.mjs (plain Node: it runs before anything is built).
export declare const PACKAGE_DIR: string;
export declare const CREATE_DIR: string;
export declare function ensurePackageTools(): void;
export declare function buildPackage(): Promise<void>;
export declare function pack(dir: string, out: string): string;
export declare function publint(tarball: string): void;
export declare function checkTarball(tarball: string): void;
export declare function packAll(
  out: string,
  options?: { check?: boolean },
): Promise<{ toolgate: string; create: string }>;
