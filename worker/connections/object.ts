/**
 * One user's connections in one tenant (one object per tenant and user key): connects under way
 * (single use) and the user's tokens per connection, sealed under the tenant's connections secret. It
 * hands a tool its user's access token, refreshing it first when it is about to expire: one refresh at
 * a time per connection, whatever the number of isolates asking (they all wait for the same one). A
 * refresh the provider refuses marks the connection as needing the user again. Made only for tenants
 * with `connections`. Its code is the library module's (lazy/store.ts, lazy/access.ts), loaded as the
 * object starts. Secrets come with each call from the Worker that read them (connectionSecrets). One
 * more object per tenant (lazy/ops.ts TENANT_INDEX) only counts who holds which connection.
 */
import { DurableObject } from "cloudflare:workers";
import { type ConnectionsLibrary, connectionsLibrary } from "../connections-library";
import type {
  AccessTokenResult,
  ConnectionClient,
  OpCall,
  Owner,
  PendingConnect,
  SubjectToken,
  TokenSet,
} from "./lazy/entry";

export class Connections extends DurableObject<Env> {
  private library!: ConnectionsLibrary;
  private readonly refreshes = new Map<string, Promise<AccessTokenResult>>();

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    void ctx.blockConcurrencyWhile(async () => {
      this.library = await connectionsLibrary();
      this.library.connectionsStore.createSchema(ctx.storage.sql);
    });
  }

  /** Stores a connect under way (by its id's SHA-256); false when the user has too many under way. */
  async beginConnect(idHash: string, pending: PendingConnect): Promise<boolean> {
    return this.library.connectionsStore.beginPending(this.ctx.storage.sql, idHash, pending, Date.now());
  }

  /** The connect with this id hash, deleted as it is read; null when absent, taken or expired. */
  async takeConnect(idHash: string): Promise<PendingConnect | null> {
    return this.library.connectionsStore.takePending(this.ctx.storage.sql, idHash, Date.now());
  }

  /** Seals and stores the tokens a connect's callback got, under `secrets[0]`. */
  async saveTokens(owner: Owner, connection: string, tokens: TokenSet, secrets: readonly string[]): Promise<void> {
    const { sql } = this.ctx.storage;
    await this.library.connectionsStore.saveTokens(sql, secrets[0]!, owner, connection, tokens, Date.now());
  }

  /**
   * The user's access token of `connection` holding `scopes` (lazy/token-for.ts): an exchange
   * connection's exchanges the call's `subject` token when it holds none that lives.
   */
  async accessToken(
    owner: Owner,
    connection: string,
    scopes: readonly string[],
    client: ConnectionClient,
    secrets: readonly string[],
    subject?: SubjectToken,
    rejected?: string,
  ): Promise<AccessTokenResult> {
    const request = { owner, connection, scopes, client, ...(rejected === undefined ? {} : { rejected }) };
    return this.library.tokenFor(this.ctx.storage.sql, this.refreshes, request, secrets, subject);
  }

  /** The listing's and the disconnect's operations (lazy/ops.ts), by name. */
  async run(...call: OpCall): Promise<unknown> {
    return this.library.runOpCall(this.ctx.storage.sql, call);
  }
}
