// accept.blue's amount_details (docs/acceptblue-compatibility.md): reporting
// figures a charge carries besides its amount. They are never validated
// against the amount and never change it. What the transaction shows is
// derived here: the subtotal is what remains of the amount once tax,
// shipping, tip and surcharge are taken off and the discount put back, and a
// tax that was not sent is computed from tax_percent as accept.blue does:
// tax = (subtotal - discount + shipping) x tax_percent / 100.

/** The figures as sent, in dollars (each optional). */
export interface AmountFigures {
  readonly tax?: number | undefined;
  readonly tax_percent?: number | undefined;
  readonly surcharge?: number | undefined;
  readonly shipping?: number | undefined;
  readonly tip?: number | undefined;
  readonly discount?: number | undefined;
}

/** Every figure in cents (tax_percent as sent), the subtotal derived. */
export interface AmountBreakdown {
  readonly subtotalCents: number;
  readonly taxCents: number;
  readonly taxPercent: number;
  readonly surchargeCents: number;
  readonly shippingCents: number;
  readonly tipCents: number;
  readonly discountCents: number;
}

const cents = (dollars: number | undefined): number => (dollars === undefined ? 0 : Math.round(dollars * 100));

/** The breakdown of `amountCents` by `figures`; a subtotal the figures would make negative shows as 0. */
export function amountBreakdown(amountCents: number, figures: AmountFigures = {}): AmountBreakdown {
  const surchargeCents = cents(figures.surcharge);
  const shippingCents = cents(figures.shipping);
  const tipCents = cents(figures.tip);
  const discountCents = cents(figures.discount);
  const taxPercent = figures.tax_percent ?? 0;
  // The taxable base (subtotal - discount + shipping) and the tax on it add up to what tip and surcharge leave.
  const taxCents = figures.tax !== undefined ? cents(figures.tax) : Math.round(((amountCents - tipCents - surchargeCents) * taxPercent) / (100 + taxPercent));
  const subtotalCents = Math.max(0, amountCents - taxCents - shippingCents - tipCents - surchargeCents + discountCents);
  return { subtotalCents, taxCents, taxPercent, surchargeCents, shippingCents, tipCents, discountCents };
}
