export interface BuildStatus {
  ok: boolean;
  message?: string;
  file?: string;
  at: number;
}
export function writeBuildStatus(root: string, status: Omit<BuildStatus, "at">): void;
export function readBuildStatus(root: string): BuildStatus | undefined;
export function buildStatusPath(root: string): string;
