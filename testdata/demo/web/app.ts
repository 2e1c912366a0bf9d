import { createElement } from "react";
import { createRoot } from "react-dom/client";
import { InvoiceTable, type InvoiceRow } from "./components/InvoiceTable";

type Problem = { type: string; title: string; status: number; detail?: string };

async function fetchInvoices(): Promise<InvoiceRow[]> {
  const res = await fetch("/v1/invoices?status=issued", { credentials: "same-origin" });
  if (!res.ok) {
    const problem: Problem = await res.json();
    // Branch on the stable problem type, never on title or detail.
    if (problem.type.endsWith("/unauthenticated")) {
      window.location.assign("/login");
    }
    throw new Error(problem.title);
  }
  return res.json();
}

const root = createRoot(document.getElementById("app")!);
fetchInvoices()
  .then((rows) => root.render(createElement(InvoiceTable, { rows })))
  .catch((err: Error) => root.render(createElement("p", { role: "alert" }, err.message)));
