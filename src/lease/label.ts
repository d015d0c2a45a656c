/**
 * Deterministic machine labels (guarantees 2 and 6). Every machine lessor creates is labelled
 * `lessor-<installation>-<lease id>-a<attempt>`:
 * - listing by `lessor-<installation>-<lease id>-` finds every machine a lease ever created, so an
 *   ambiguous create is reconciled before anything new is created;
 * - listing by `lessor-<installation>-` finds every machine of this installation and no other's
 *   (installation ids have no `-`, so one can never be a prefix of another's label);
 * - a machine without the `lessor-` prefix is never touched.
 */
export const LABEL_ROOT = "lessor-";
const INSTALLATION = /^[a-z0-9]{1,24}$/;

export function assertInstallationId(id: string): string {
  if (!INSTALLATION.test(id)) throw new Error(`LESSOR_INSTALLATION_ID must match ${INSTALLATION}, got "${id}"`);
  return id;
}

export function installationPrefix(installation: string): string {
  return `${LABEL_ROOT}${assertInstallationId(installation)}-`;
}

export function leasePrefix(installation: string, leaseId: string): string {
  return `${installationPrefix(installation)}${leaseId}-`;
}

export function machineLabel(installation: string, leaseId: string, attempt: number): string {
  return `${leasePrefix(installation, leaseId)}a${attempt}`;
}

/**
 * A volume's label, `lessor-<installation>-<volume id>` (docs/volumes.md): listing by the
 * installation's prefix finds this installation's volumes as it finds its machines, and a volume's
 * own label finds it after a create whose outcome was unknown.
 */
export function volumeLabel(installation: string, volumeId: string): string {
  return `${installationPrefix(installation)}${volumeId}`;
}

/** The volume id of one of this installation's volume labels; null for anyone else's. */
export function parseVolumeLabel(installation: string, label: string): string | null {
  const prefix = installationPrefix(installation);
  if (!label.startsWith(prefix)) return null;
  const m = /^(vol_[0-9a-z]+)$/.exec(label.slice(prefix.length));
  return m ? m[1]! : null;
}

/** The lease and attempt of one of this installation's labels; null for anyone else's. */
export function parseLabel(installation: string, label: string): { leaseId: string; attempt: number } | null {
  const prefix = installationPrefix(installation);
  if (!label.startsWith(prefix)) return null;
  const m = /^(ls_[0-9a-z]+)-a([1-9][0-9]*)$/.exec(label.slice(prefix.length));
  return m ? { leaseId: m[1]!, attempt: Number(m[2]) } : null;
}

/**
 * Which of a lease's machines to adopt after an ambiguous create: the one with the highest
 * attempt in its label, the lease's latest create. Never by creation time: a provider may give
 * none (Lambda's instances carry no creation time). A machine whose label does not parse comes
 * last; among equals, the newer `created_at` wins (the order is total, so the choice is the same
 * on every run). null when there is none.
 */
export function latestAttempt<M extends { label: string; created_at: number }>(installation: string, machines: readonly M[]): M | null {
  let best: M | null = null;
  let bestAttempt = 0;
  for (const m of machines) {
    const attempt = parseLabel(installation, m.label)?.attempt ?? 0;
    if (best === null || attempt > bestAttempt || (attempt === bestAttempt && m.created_at > best.created_at)) {
      best = m;
      bestAttempt = attempt;
    }
  }
  return best;
}
