// Amounts arrive from the API as integer minor units plus an ISO 4217
// currency. Never divide and add floats: sum cents, format once.

export type Cents = number;

export function sumCents(values: Cents[]): Cents {
  return values.reduce((a, b) => a + b, 0);
}

export function formatMoney(cents: Cents, currency: string, locale = navigator.language): string {
  return new Intl.NumberFormat(locale, { style: "currency", currency }).format(cents / 100);
}
