import { existsSync } from 'node:fs';
import { writeFile, rename } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { Gateway } from '../app.ts';
import { stockholmDate } from '../core/calendar-date.ts';
import { DEMO } from '../demo/demo-data.ts';
import { CATALOGUE_NAMESPACE } from '../messages/catalogue-namespace.ts';

/**
 * On the first demo start, drops a sample SalaryAdjustment into demo-employer's inbox
 * so a newcomer sees a document go from folder to response. Dated today, so the
 * back-dating rule accepts it whenever the demo runs.
 */
export async function dropDemoSample(gateway: Gateway): Promise<void> {
  const folder = gateway.folders.get('demo-employer');
  if (!folder) return;
  const marker = join(resolve(gateway.config.dataDir), '.demo-sample-dropped');
  if (existsSync(marker)) return;
  const today = stockholmDate(new Date());
  const name = `demo-salary-${today}.xml`;
  const inbox = join(folder, 'inbox');
  await writeFile(join(inbox, `.${name}.tmp`), sampleSalaryAdjustment(today));
  await rename(join(inbox, `.${name}.tmp`), join(inbox, name));
  await writeFile(marker, `${name}\n`);
  gateway.log.info(
    { inbox: join(inbox, name), outbox: join(folder, 'outbox') },
    'demo: dropped a sample SalaryAdjustment; its SalaryAdjustmentResponse will appear in the outbox',
  );
}

function sampleSalaryAdjustment(today: string): string {
  return `<?xml version="1.0" encoding="UTF-8"?>
<SalaryAdjustment xmlns="${CATALOGUE_NAMESPACE}">
  <Header>
    <MessageId>DEMO-SALARY-${today}</MessageId>
    <CreatedAt>${today}T08:00:00+01:00</CreatedAt>
    <AgreementNumber>${DEMO.agreementNumber}</AgreementNumber>
    <EmployerOrganisationNumber>${DEMO.employerOrganisationNumber}</EmployerOrganisationNumber>
  </Header>
  <Item>
    <ItemId>1</ItemId>
    <PersonalIdentityNumber>${DEMO.persons.anna}</PersonalIdentityNumber>
    <EffectiveDate>${today}</EffectiveDate>
    <AnnualSalary currency="SEK">540000.00</AnnualSalary>
  </Item>
  <Item>
    <ItemId>2</ItemId>
    <PersonalIdentityNumber>${DEMO.persons.bertil}</PersonalIdentityNumber>
    <EffectiveDate>${today}</EffectiveDate>
    <AnnualSalary currency="SEK">612000.00</AnnualSalary>
  </Item>
</SalaryAdjustment>
`;
}
