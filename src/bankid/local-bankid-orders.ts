import { randomUUID } from 'node:crypto';
import type { CollectResponseBody, CompletionData, FailedHintCode, PendingHintCode, RpErrorBody, SignRequestBody, SignResponseBody } from './bankid-protocol.ts';

/**
 * The orders of the local BankID server and how they move, as BankID moves them:
 * pending outstandingTransaction → started (the app opened) → userSign (the order
 * shown to the person) → complete; or failed with userCancel, startFailed,
 * certificateErr, expiredTransaction (the order's lifetime ran out while pending) or
 * cancelled (a new order for the same personal number came in, which itself is refused
 * with alreadyInProgress). The relying party's cancel removes a pending order.
 * Finished orders can be collected for keepFinishedMs, then they are forgotten and
 * collect answers invalidParameters "No such order", like an order never made.
 * Time is read from `now` at each call, so expiry needs no timers.
 */
export interface LocalPerson {
  /** 12 digits. */
  readonly personalNumber: string;
  readonly givenName: string;
  readonly surname: string;
  /** The device's address in completionData; default the order's endUserIp. */
  readonly ipAddress?: string;
  /** Default the day the order completes. */
  readonly bankIdIssueDate?: string;
}

export type OrderState =
  | { readonly status: 'pending'; readonly hintCode: PendingHintCode }
  | { readonly status: 'failed'; readonly hintCode: FailedHintCode; readonly finishedAt: number }
  | { readonly status: 'complete'; readonly completionData: CompletionData; readonly finishedAt: number };

export interface LocalOrder {
  readonly orderRef: string;
  readonly tokens: SignResponseBody;
  readonly request: SignRequestBody;
  readonly createdAt: number;
  readonly state: OrderState;
}

export interface OrderBookOptions {
  readonly now: () => number;
  /** A pending order fails with expiredTransaction this long after it was made. */
  readonly orderLifetimeMs: number;
  readonly keepFinishedMs: number;
  /** completionData.signature and ocspResponse for an order the person signs. */
  readonly sign: (order: LocalOrder, person: LocalPerson) => { signature: string; ocspResponse: string };
}

type Answer<T> = { readonly ok: true; readonly body: T } | { readonly ok: false; readonly error: RpErrorBody };

const noSuchOrder: Answer<never> = { ok: false, error: { errorCode: 'invalidParameters', details: 'No such order' } };

export class LocalOrderBook {
  readonly #orders = new Map<string, { -readonly [K in keyof LocalOrder]: LocalOrder[K] }>();
  readonly #options: OrderBookOptions;

  constructor(options: OrderBookOptions) {
    this.#options = options;
  }

  /** A new order, or alreadyInProgress (and the pending order cancelled) when one is pending for the same personal number. */
  create(request: SignRequestBody): Answer<SignResponseBody> {
    const personalNumber = request.requirement?.personalNumber;
    if (personalNumber !== undefined) {
      const pending = this.list().find((order) => order.state.status === 'pending' && order.request.requirement?.personalNumber === personalNumber);
      if (pending) {
        this.#setState(pending.orderRef, { status: 'failed', hintCode: 'cancelled', finishedAt: this.#options.now() });
        return { ok: false, error: { errorCode: 'alreadyInProgress', details: 'Order already in progress for pno' } };
      }
    }
    const tokens: SignResponseBody = { orderRef: randomUUID(), autoStartToken: randomUUID(), qrStartToken: randomUUID(), qrStartSecret: randomUUID() };
    this.#orders.set(tokens.orderRef, { orderRef: tokens.orderRef, tokens, request, createdAt: this.#options.now(), state: { status: 'pending', hintCode: 'outstandingTransaction' } });
    return { ok: true, body: tokens };
  }

  collect(orderRef: string): Answer<CollectResponseBody> {
    const order = this.find(orderRef);
    if (!order) return noSuchOrder;
    const { state } = order;
    switch (state.status) {
      case 'pending':
      case 'failed':
        return { ok: true, body: { orderRef, status: state.status, hintCode: state.hintCode } };
      case 'complete':
        return { ok: true, body: { orderRef, status: 'complete', completionData: state.completionData } };
      default:
        return state satisfies never;
    }
  }

  /** The relying party's cancel: a pending order is removed; anything else is invalidParameters. */
  cancel(orderRef: string): Answer<Record<string, never>> {
    const order = this.find(orderRef);
    if (!order || order.state.status !== 'pending') return noSuchOrder;
    this.#orders.delete(orderRef);
    return { ok: true, body: {} };
  }

  /** The order as it stands now (expired, forgotten), or undefined. */
  find(orderRef: string): LocalOrder | undefined {
    const order = this.#orders.get(orderRef);
    if (!order) return undefined;
    const now = this.#options.now();
    if (order.state.status === 'pending' && now >= order.createdAt + this.#options.orderLifetimeMs) {
      order.state = { status: 'failed', hintCode: 'expiredTransaction', finishedAt: order.createdAt + this.#options.orderLifetimeMs };
    }
    if (order.state.status !== 'pending' && now >= order.state.finishedAt + this.#options.keepFinishedMs) {
      this.#orders.delete(orderRef);
      return undefined;
    }
    return order;
  }

  list(): LocalOrder[] {
    return [...this.#orders.keys()].map((orderRef) => this.find(orderRef)).filter((order) => order !== undefined);
  }

  /** The person opens the BankID app for the order. */
  startApp(orderRef: string): void {
    this.#move(orderRef, ['outstandingTransaction', 'noClient'], { status: 'pending', hintCode: 'started' });
  }

  /** The app shows the order to the person, who is asked for their security code. */
  showToPerson(orderRef: string): void {
    this.#move(orderRef, ['started'], { status: 'pending', hintCode: 'userSign' });
  }

  /** The person signs. An order that requires a personal number can be signed by that person only. */
  sign(orderRef: string, person: LocalPerson): void {
    const order = this.#pending(orderRef, ['userSign']);
    const required = order.request.requirement?.personalNumber;
    if (required !== undefined && required !== person.personalNumber) {
      throw new Error(`order ${orderRef} requires ${required}; BankID shows it to that person only, so ${person.personalNumber} cannot sign it`);
    }
    const now = this.#options.now();
    const { signature, ocspResponse } = this.#options.sign(order, person);
    const completionData: CompletionData = {
      user: { personalNumber: person.personalNumber, name: `${person.givenName} ${person.surname}`, givenName: person.givenName, surname: person.surname },
      device: { ipAddress: person.ipAddress ?? order.request.endUserIp },
      bankIdIssueDate: person.bankIdIssueDate ?? new Date(now).toISOString().slice(0, 10),
      ...(order.request.requirement?.mrtd ? { stepUp: { mrtd: true } } : {}),
      signature,
      ocspResponse,
    };
    this.#setState(orderRef, { status: 'complete', completionData, finishedAt: now });
  }

  /** The person cancels in the app, the app fails to start, or their BankID is unusable. */
  fail(orderRef: string, hintCode: 'userCancel' | 'startFailed' | 'certificateErr'): void {
    this.#pending(orderRef, ['outstandingTransaction', 'noClient', 'started', 'userSign']);
    this.#setState(orderRef, { status: 'failed', hintCode, finishedAt: this.#options.now() });
  }

  #move(orderRef: string, from: readonly PendingHintCode[], to: OrderState): void {
    this.#pending(orderRef, from);
    this.#setState(orderRef, to);
  }

  #pending(orderRef: string, from: readonly PendingHintCode[]): LocalOrder {
    const order = this.find(orderRef);
    if (!order) throw new Error(`no order ${orderRef} (never made, cancelled, or forgotten)`);
    if (order.state.status !== 'pending' || !from.includes(order.state.hintCode)) {
      const at = order.state.status === 'complete' ? 'complete' : `${order.state.status}/${order.state.hintCode}`;
      throw new Error(`order ${orderRef} is ${at}; this step needs it pending with ${from.join(' or ')}`);
    }
    return order;
  }

  #setState(orderRef: string, state: OrderState): void {
    const order = this.#orders.get(orderRef);
    if (order) order.state = state;
  }
}
