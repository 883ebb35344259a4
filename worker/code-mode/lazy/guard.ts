import { parse, type Node } from "acorn";
import { simple } from "acorn-walk";

/**
 * A program's module (program.js) with a step guard: a call of the guard at the top of every loop's
 * body and every function's (its line is the stack's). The sandbox's guard counts the steps and, past the
 * run's budget, throws a RangeError there (and at every step after it, so a program that catches it
 * cannot go on looping). This bounds an infinite loop with an error naming its line, where the
 * runtime's CPU limit would end the isolate without one, and where there is no CPU limit at all
 * (local workerd). Nothing is inserted on a new line: the program's line numbers stay the module's.
 */
export type GuardedProgram = { ok: true; module: string } | { ok: false; message: string; line: number | undefined };

/** The program's first line follows this header on the module's first line. */
const header = (guard: string) => `export default async function (tools, ${guard}) { `;

type Loop = Node & { body: Node };
type Fn = Node & { body: Node; expression?: boolean };

/**
 * Instruments `code` with a guard named `guard` (a name the program cannot know: its source cannot
 * refer to it, and it has no way to run source made at run time). A syntax error is answered
 * with its line, the program never loaded.
 */
export function guardProgram(code: string, guard: string): GuardedProgram {
  const module = `${header(guard)}${code}\n}\n`;
  let tree: Node;
  try {
    tree = parse(module, { ecmaVersion: "latest", sourceType: "module" });
  } catch (error) {
    const { message, loc } = error as SyntaxError & { loc?: { line: number } };
    return { ok: false, message: `SyntaxError: ${message.replace(/ \(\d+:\d+\)$/, "")}`, line: loc?.line };
  }
  const inserts: { at: number; text: string; closes?: true }[] = [];
  const call = `${guard}()`;
  const intoBody = (body: Node) => {
    if (body.type === "BlockStatement") inserts.push({ at: body.start + 1, text: `${call};` });
    else inserts.push({ at: body.start, text: `{${call};` }, { at: body.end, text: "}", closes: true });
  };
  const loop = (node: Node) => intoBody((node as Loop).body);
  const fn = (node: Node) => {
    const { body } = node as Fn;
    if (body.type === "BlockStatement") intoBody(body);
    else inserts.push({ at: body.start, text: `(${call}, ` }, { at: body.end, text: ")", closes: true });
  };
  simple(tree, {
    ForStatement: loop,
    ForInStatement: loop,
    ForOfStatement: loop,
    WhileStatement: loop,
    DoWhileStatement: loop,
    FunctionDeclaration: fn,
    FunctionExpression: fn,
    ArrowFunctionExpression: fn,
  });
  // From the end, so each position is still the source's. At one position a later insert lands in
  // front of an earlier one, so openers go first (what closes stays before what opens), and since the
  // walk pushes an inner node's inserts before its parent's, closers go outer first (the inner one
  // lands in front) and openers inner first (the outer one lands in front).
  const order = inserts.map((insert, seq) => ({ ...insert, seq }));
  order.sort((a, b) => {
    if (a.at !== b.at) return b.at - a.at;
    if (Boolean(a.closes) !== Boolean(b.closes)) return a.closes ? 1 : -1;
    return a.closes ? b.seq - a.seq : a.seq - b.seq;
  });
  let out = module;
  for (const { at, text } of order) out = out.slice(0, at) + text + out.slice(at);
  return { ok: true, module: out };
}

/** A guard's name for one run: not a name any program's source could hold by chance. */
export function guardName(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(8));
  return `__toolgate_step_${Array.from(bytes, (byte) => byte.toString(16).padStart(2, "0")).join("")}`;
}
