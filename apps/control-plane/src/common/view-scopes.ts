/**
 * What a caller may see, for the nouns the ACLs cannot be imported into (the ACLs record their
 * own changes through AuditService, so the audit log's controller reads them through this token): the ACLs module
 * provides VIEW_SCOPES as its AclsService.
 */
export type ViewScope = { only: string[] } | { except: string[] };

export interface ViewScopes {
  /** The values of the action's object the caller may see (AclsService.scope). */
  scope(caller: { name: string; kind: string | null }, action: 'view_audit' | 'view_roles'): ViewScope;
}

export const VIEW_SCOPES = 'arbiter:view-scopes';
