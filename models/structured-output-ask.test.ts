import type { SharedV4ProviderOptions } from '@ai-sdk/provider';
import { structuredOutputAsk, withInstruction } from './structured-output-ask';
import type { SupportedLanguageModel } from './supported-language-model';

const optional = {
  type: 'object',
  properties: { city: { type: 'string' }, nickname: { type: 'string' } },
  required: ['city'],
  additionalProperties: false,
};
const output = { schema: optional, name: 'city' };
const responseFormat = { type: 'json', schema: optional, name: 'city' };

/** Only what the ask reads of a model: its provider id, model id and the compatible provider's flag. */
const model = (provider: string, extra: object = {}) =>
  ({ provider, modelId: 'm', specificationVersion: 'v4', ...extra }) as unknown as SupportedLanguageModel;

const ask = (m: SupportedLanguageModel, providerOptions?: SharedV4ProviderOptions, withTools = true) =>
  structuredOutputAsk({ model: m, output, withTools, providerOptions });

describe('how a request asks for the structured answer', () => {
  it('Azure: strictJsonSchema goes where the provider reads it, beside the options already there', () => {
    expect(ask(model('azure.responses')).providerOptions).toEqual({ openai: { strictJsonSchema: false } });
    // The Responses model reads the `azure` options as a whole when there are any.
    expect(ask(model('azure.responses'), { azure: { store: false } }).providerOptions).toEqual({
      azure: { store: false, strictJsonSchema: false },
    });
  });

  it('OpenAI: a strictJsonSchema the configuration chose stands, under either key', () => {
    const chosen: SharedV4ProviderOptions[] = [
      { openai: { strictJsonSchema: true } },
      { azure: { strictJsonSchema: true } },
    ];
    for (const options of chosen)
      expect(ask(model('openai.chat'), options)).toEqual({ responseFormat, providerOptions: options });
  });

  it('another provider gets the response format as before, and no instruction', () => {
    expect(ask(model('google.generative-ai'))).toEqual({ responseFormat, providerOptions: undefined });
    expect(ask(model('mistral.chat'), { mistral: { safePrompt: true } })).toEqual({
      responseFormat,
      providerOptions: { mistral: { safePrompt: true } },
    });
  });

  it('Anthropic: structuredOutputMode outputFormat in the configuration stands, with tools', () => {
    const options = { anthropic: { structuredOutputMode: 'outputFormat' } };
    expect(ask(model('anthropic.messages', { modelId: 'claude-sonnet-4-0' }), options)).toEqual({
      responseFormat,
      providerOptions: options,
    });
  });

  it('puts the instruction after the leading system messages, where Anthropic takes them', () => {
    const user = { role: 'user' as const, content: [{ type: 'text' as const, text: 'hi' }] };
    const system = { role: 'system' as const, content: 'Be terse.' };
    const instruction = { role: 'system', content: 'JSON please' };
    expect(withInstruction([system, user], 'JSON please')).toEqual([system, instruction, user]);
    expect(withInstruction([user], 'JSON please')).toEqual([instruction, user]);
    expect(withInstruction([system], 'JSON please')).toEqual([system, instruction]);
    expect(withInstruction([user], undefined)).toEqual([user]);
  });
});
