import { formatMoney, sumCents, type Cents } from "../lib/money";

export type InvoiceRow = {
  id: string;
  number: string;
  status: "draft" | "issued" | "void";
  currency: string;
  net_cents: Cents;
  vat_cents: Cents;
  gross_cents: Cents;
};

type Props = { rows: InvoiceRow[] };

export function InvoiceTable({ rows }: Props) {
  const currency = rows[0]?.currency ?? "EUR";
  const total = sumCents(rows.map((r) => r.gross_cents));
  return (
    <table className="invoices">
      <thead>
        <tr>
          <th scope="col">Number</th>
          <th scope="col">Net</th>
          <th scope="col">VAT</th>
          <th scope="col">Gross</th>
        </tr>
      </thead>
      <tbody>
        {rows.map((r) => (
          <tr key={r.id}>
            <td>{r.number}</td>
            <td className="num">{formatMoney(r.net_cents, r.currency)}</td>
            <td className="num">{formatMoney(r.vat_cents, r.currency)}</td>
            <td className="num">{formatMoney(r.gross_cents, r.currency)}</td>
          </tr>
        ))}
      </tbody>
      <tfoot>
        <tr>
          <th scope="row" colSpan={3}>Total</th>
          <td className="num">{formatMoney(total, currency)}</td>
        </tr>
      </tfoot>
    </table>
  );
}
