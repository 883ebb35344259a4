/**
 * The demo shop's data (find_customer, list_orders, get_order): four customers and 24 orders, made
 * by formula so every run and every test sees the same. Amounts are integer cents.
 */

export interface Customer {
  id: string;
  name: string;
  email: string;
}

export interface OrderLine {
  sku: string;
  name: string;
  quantity: number;
  unitPriceCents: number;
}

export interface Order {
  id: string;
  customerId: string;
  /** The day it was placed, YYYY-MM-DD. */
  placedAt: string;
  status: "delivered" | "shipped" | "processing";
  lines: OrderLine[];
  totalCents: number;
}

export const CUSTOMERS: readonly Customer[] = [
  { id: "cus_1", name: "Ada Lovelace", email: "ada@example.com" },
  { id: "cus_2", name: "Grace Hopper", email: "grace@example.com" },
  { id: "cus_3", name: "Alan Turing", email: "alan@example.com" },
  { id: "cus_4", name: "Katherine Johnson", email: "katherine@example.com" },
];

const PRODUCTS = [
  { sku: "P-100", name: "Notebook", unitPriceCents: 450 },
  { sku: "P-101", name: "Pencil set", unitPriceCents: 325 },
  { sku: "P-102", name: "Desk lamp", unitPriceCents: 2999 },
  { sku: "P-103", name: "Stapler", unitPriceCents: 1250 },
  { sku: "P-104", name: "Paper ream", unitPriceCents: 899 },
];

const DAY_MS = 86_400_000;
const FIRST_DAY = Date.UTC(2026, 0, 3);
const STATUSES = ["delivered", "shipped", "processing"] as const;

/** Oldest first: order i is placed 5 to 7 days after order i - 1. */
export const ORDERS: readonly Order[] = Array.from({ length: 24 }, (_, i) => {
  const lines = Array.from({ length: 1 + (i % 3) }, (_, j) => ({
    ...PRODUCTS[(i + j * 2) % PRODUCTS.length]!,
    quantity: 1 + ((i + j) % 4),
  }));
  return {
    id: `ord_${1001 + i}`,
    customerId: CUSTOMERS[i % CUSTOMERS.length]!.id,
    placedAt: new Date(FIRST_DAY + (i * 6 + (i % 3) - 1) * DAY_MS).toISOString().slice(0, 10),
    status: i >= 22 ? STATUSES[2] : i >= 19 ? STATUSES[1] : STATUSES[0],
    lines,
    totalCents: lines.reduce((sum, line) => sum + line.quantity * line.unitPriceCents, 0),
  };
});
