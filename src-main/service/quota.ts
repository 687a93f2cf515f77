// How the service says the quota is used up, kept as data in one place. The interface: HTTP
// 429 (interface 7). The service's README: the old free tier answered a 200 `{status:
// "error", message}` instead; its wording is matched here by whole phrases, never by a loose
// word ("Text exceeds the length limit" is a refused request, not an empty account).

/** Phrases of a 200 `{status: "error"}` answer that mean the free quota and balance are used up. */
export const QUOTA_PHRASES: readonly RegExp[] = [
  /\bfree (requests?|calls?|tier|trial)( quota)? (limit )?(is )?(exceeded|exhausted|used up|over)\b/i,
  /\b(requests?|usage) limit (exceeded|reached)\b.*\b(plan|quota|balance|account|free)\b/i,
  /\bquota (is )?(exceeded|exhausted|used up|reached)\b/i,
  /\b(exceeded|exhausted|used up|reached) (your |the )?(free |monthly |daily )?quota\b/i,
  /\b(balance|credits?|funds) (is |are )?(insufficient|exhausted|too low|used up)\b/i,
  /\b(insufficient|not enough|no) (balance|credits?|funds)\b/i,
  /\bout of (credits?|quota)\b/i,
];

/** HTTP statuses that mean the free quota or plan requests are exhausted (interface 7). */
export const QUOTA_STATUSES: readonly number[] = [429];

/** Whether the service's message of a `{status: "error"}` answer says the quota is used up. */
export function isQuotaMessage(message: string): boolean {
  return QUOTA_PHRASES.some((p) => p.test(message));
}
