/**
 * The emulator checks bodies, answers and parameters with validators ajv generated from its
 * contract at build time (src/emulator/contract-validators.js and its declarations, src/emulator/generate-validators.ts):
 * the committed module is what the generator makes of the document as it is, and one made from
 * another text is refused, naming the command that makes it anew.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CONTRACT_VALIDATORS_DECLARATIONS, CONTRACT_VALIDATORS_MODULE } from '../../src/emulator/contract-keys.js';
import { componentValidator, openApiText, validatorsFor } from '../../src/emulator/contract.js';
import {
  renderContractValidatorsDeclarations,
  renderContractValidatorsModule,
} from '../../src/emulator/generate-validators.js';

const ROOT = join(import.meta.dirname, '..', '..');

describe("the emulator's generated contract validators", () => {
  it('are what the generator makes of the contract as it is', () => {
    const committed = readFileSync(join(ROOT, CONTRACT_VALIDATORS_MODULE), 'utf8');
    expect(
      committed === renderContractValidatorsModule(openApiText()),
      `${CONTRACT_VALIDATORS_MODULE} is stale; regenerate: npm run generate`,
    ).toBe(true);
    expect(readFileSync(join(ROOT, CONTRACT_VALIDATORS_DECLARATIONS), 'utf8')).toBe(
      renderContractValidatorsDeclarations(),
    );
  });

  it('are refused for a contract they were not made from, naming the command that makes them anew', () => {
    expect(validatorsFor(openApiText()).components.HttpsUrl).toBe(componentValidator('HttpsUrl'));
    const edited = openApiText().replace('"maxLength": 2048', '"maxLength": 2049');
    expect(edited).not.toBe(openApiText());
    // The same text with CRLF line ends (a Windows checkout) is the same contract.
    expect(() => validatorsFor(openApiText().replace(/\n/g, '\r\n'))).not.toThrow();
    expect(() => validatorsFor(edited)).toThrow(
      /contract-validators\.js was generated from another schemas\/platform-api-v2\.openapi\.json; regenerate: npm run generate/,
    );
  });

  it('check a component as the contract says, every error named', () => {
    const validate = componentValidator('HttpsUrl');
    expect(validate('https://hooks.example/a')).toBe(true);
    expect(validate('http://hooks.example/a')).toBe(false);
    expect(validate.errors?.length).toBeGreaterThan(0);
    expect(() => componentValidator('NoSuchSchema')).toThrow(/has no schema NoSuchSchema/);
  });
});
