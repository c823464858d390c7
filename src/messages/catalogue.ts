import type { MessageFamily, MessageType } from './message-type.ts';
import { changeFee } from './plan-administration/change-fee.message.ts';
import { salaryAdjustment } from './plan-administration/salary-adjustment.message.ts';
import { employmentEnded } from './plan-administration/employment-ended.message.ts';
import { billingStop } from './plan-administration/billing-stop.message.ts';
import { billingStart } from './plan-administration/billing-start.message.ts';
import { transfer } from './plan-administration/transfer.message.ts';
import { predefinedDistributionPlan } from './plan-administration/predefined-distribution-plan.message.ts';
import { reallocate } from './plan-administration/reallocate.message.ts';
import { insurancePurchase } from './plan-administration/insurance-purchase.message.ts';
import { premiumAdjustment } from './plan-administration/premium-adjustment.message.ts';
import { premiumEnded } from './plan-administration/premium-ended.message.ts';
import { extraPremium } from './plan-administration/extra-premium.message.ts';
import { changeCategory } from './plan-administration/change-category.message.ts';
import { changeCostCenter } from './plan-administration/change-cost-center.message.ts';
import { addCategories } from './plan-administration/add-categories.message.ts';
import { updateAdministrators } from './plan-administration/update-administrators.message.ts';
import { costAndCharges } from './custodian-reporting/cost-and-charges.message.ts';
import { holdings } from './custodian-reporting/holdings.message.ts';
import { transactions } from './custodian-reporting/transactions.message.ts';
import { custodianSwitchConfirmation } from './custodian-reporting/custodian-switch-confirmation.message.ts';
import { commissionFile } from './advisor-reporting/commission-file.message.ts';
import { transferLeaflet } from './insurer-transfer/transfer-leaflet.message.ts';

/**
 * Every request type the gateway accepts. Adding a type is its schema, its fixtures,
 * its module, and one line here.
 */
const REQUEST_TYPES: readonly MessageType<never>[] = [
  changeFee,
  salaryAdjustment,
  employmentEnded,
  billingStop,
  billingStart,
  transfer,
  predefinedDistributionPlan,
  reallocate,
  insurancePurchase,
  premiumAdjustment,
  premiumEnded,
  extraPremium,
  changeCategory,
  changeCostCenter,
  addCategories,
  updateAdministrators,
  costAndCharges,
  holdings,
  transactions,
  custodianSwitchConfirmation,
  commissionFile,
  transferLeaflet,
] as unknown as readonly MessageType<never>[];

export const FAMILIES: readonly MessageFamily[] = ['plan-administration', 'custodian-reporting', 'insurer-transfer', 'advisor-reporting'];

export class Catalogue {
  private readonly byName = new Map<string, MessageType>();

  constructor(types: readonly MessageType<never>[] = REQUEST_TYPES) {
    for (const type of types) this.byName.set(type.name, type as unknown as MessageType);
  }

  get(name: string): MessageType | undefined {
    return this.byName.get(name);
  }

  get names(): string[] {
    return [...this.byName.keys()];
  }

  /** Expands family names in a counterparty's `messageTypes` to type names; throws naming an unknown one. */
  expandAllowed(entries: readonly string[]): Set<string> {
    const allowed = new Set<string>();
    for (const entry of entries) {
      const problem = this.unknownEntryProblem(entry);
      if (problem !== undefined) throw new Error(problem);
      if ((FAMILIES as readonly string[]).includes(entry)) {
        for (const type of this.byName.values()) if (type.family === entry) allowed.add(type.name);
      } else {
        allowed.add(entry);
      }
    }
    return allowed;
  }

  /** What is wrong with an entry of a counterparty's `messageTypes`: undefined for a document type or a family. */
  unknownEntryProblem(entry: string): string | undefined {
    if ((FAMILIES as readonly string[]).includes(entry) || this.byName.has(entry)) return undefined;
    return `"${entry}" is neither a document type (${this.names.join(', ')}) nor a family (${FAMILIES.join(', ')})`;
  }
}
