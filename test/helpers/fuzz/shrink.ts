import { PacketSpec } from './packets';
import { ConnectStep, Step } from './steps';

/** Shrinks a failing sequence to a smaller one that still fails, and prints sequences for a human. */

/**
 * Delta debugging (Zeller's ddmin) over the steps of a failing sequence, then over the packets of each write (a
 * CONNECT's pipelined packets included): the smallest sequence found for which `fails` still holds, within `budget`.
 */
export async function shrinkSteps(steps: Step[], fails: (steps: Step[]) => Promise<boolean>, budget: { trials: number; deadline: number }): Promise<Step[]> {
  let trials = 0;
  const spent = () => trials >= budget.trials || Date.now() > budget.deadline;
  const attempt = async (candidate: Step[]) => {
    trials++;
    return fails(candidate);
  };
  async function ddmin<T>(items: T[], rebuild: (subset: T[]) => Step[]): Promise<T[]> {
    let granularity = 2;
    while (items.length >= 2 && !spent()) {
      const size = Math.ceil(items.length / granularity);
      let reduced = false;
      for (let start = 0; start < items.length && !spent(); start += size) {
        const complement = [...items.slice(0, start), ...items.slice(start + size)];
        if (complement.length > 0 && (await attempt(rebuild(complement)))) {
          items = complement;
          granularity = Math.max(granularity - 1, 2);
          reduced = true;
          break;
        }
      }
      if (!reduced) {
        if (granularity >= items.length) break;
        granularity = Math.min(items.length, granularity * 2);
      }
    }
    return items;
  }
  let current = await ddmin(steps, (s) => s);
  for (let i = 0; i < current.length && !spent(); i++) {
    const step = current[i];
    const replaced = (packets: PacketSpec[]): Step[] =>
      current.map((s, j) => (j !== i ? s : step.do === 'send' ? { ...step, packets } : { ...(step as ConnectStep), pipelined: packets }));
    const packets = step.do === 'send' ? step.packets : step.do === 'connect' ? (step.pipelined ?? []) : [];
    if (packets.length >= 2) current = replaced(await ddmin(packets, replaced));
  }
  return current;
}

/** A sequence for a human, one step a line: Buffers as text when printable, else hex; long ones cut. */
export function describeSteps(steps: Step[]): string {
  const shown = (_key: string, value: unknown) => {
    const buffer = Buffer.isBuffer(value) ? value : isSerializedBuffer(value) ? Buffer.from(value.data) : undefined;
    if (buffer) {
      const asText = buffer.toString('utf8');
      const out = /^[\x20-\x7e]*$/.test(asText) ? asText : `hex:${buffer.toString('hex')}`;
      return out.length > 120 ? `${out.slice(0, 100)}…(${buffer.length} bytes)` : out;
    }
    return typeof value === 'string' && value.length > 120 ? `${value.slice(0, 60)}…(${value.length} chars)` : value;
  };
  return ['[', ...steps.map((step, i) => `  ${JSON.stringify(step, shown)}${i < steps.length - 1 ? ',' : ''}`), ']'].join('\n');
}

const isSerializedBuffer = (v: unknown): v is { type: 'Buffer'; data: number[] } =>
  typeof v === 'object' && v !== null && (v as { type?: unknown }).type === 'Buffer' && Array.isArray((v as { data?: unknown }).data);
