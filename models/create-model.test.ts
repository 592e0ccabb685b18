import { createModel } from './create-model';
import type { ModelConfig } from './model-config';
import { ScriptedModel } from './scripted-model';

function configError(config: unknown, env: Record<string, string> = {}): string {
  try {
    createModel(config as ModelConfig, { env });
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
  throw new Error('expected createModel to throw');
}

describe('createModel', () => {
  it('builds each provider’s model under the configured name', () => {
    const env = { OPENAI_API_KEY: 'sk-a', ANTHROPIC_API_KEY: 'sk-b' };
    expect(createModel({ provider: 'openai', name: 'gpt', model: 'gpt-4.1-mini' }, { env }).name).toBe('gpt');
    expect(
      createModel({ provider: 'anthropic', name: 'claude', model: 'claude-sonnet-4-5' }, { env }).name,
    ).toBe('claude');
    expect(
      createModel(
        {
          provider: 'openai-compatible',
          name: 'local',
          model: 'qwen2.5:7b',
          baseURL: 'http://localhost:11434/v1',
        },
        { env: {} },
      ).name,
    ).toBe('local');
  });

  it('builds a scripted model from steps', () => {
    const model = createModel({ provider: 'scripted', steps: [{ text: 'hi' }] });
    expect(model).toBeInstanceOf(ScriptedModel);
    expect(model.name).toBe('scripted');
  });

  it('names the environment variable when the API key is missing', () => {
    expect(configError({ provider: 'openai', name: 'gpt', model: 'gpt-4.1-mini' })).toContain(
      'OPENAI_API_KEY',
    );
    expect(
      configError({ provider: 'anthropic', name: 'c', model: 'claude', apiKeyEnv: 'TEAM_ANTHROPIC_KEY' }),
    ).toContain('TEAM_ANTHROPIC_KEY, which is not set');
    expect(
      configError(
        {
          provider: 'openai-compatible',
          name: 'vllm',
          model: 'm',
          baseURL: 'http://h:8000/v1',
          apiKeyEnv: 'VLLM_KEY',
        },
        { VLLM_KEY: '  ' },
      ),
    ).toContain('VLLM_KEY');
  });

  it('names the field when the config is invalid', () => {
    expect(configError({ provider: 'openai-compatible', name: 'local', model: 'm' })).toContain('baseURL');
    expect(
      configError({ provider: 'openai-compatible', name: 'local', model: 'm', baseURL: 'localhost:11434' }),
    ).toContain('baseURL');
    expect(configError({ provider: 'anthropic', name: '', model: 'm' })).toContain('name');
    expect(configError({ provider: 'openai', name: 'gpt', model: 'm', temperature: 7 })).toContain(
      'temperature',
    );
    expect(configError({ provider: 'gemini', name: 'g', model: 'm' })).toContain('provider');
  });

  it('refuses a key pasted where the variable name belongs, without repeating it', () => {
    const message = configError({
      provider: 'openai',
      name: 'gpt',
      model: 'm',
      apiKeyEnv: 'sk-proj-secret123',
    });
    expect(message).toContain('apiKeyEnv');
    expect(message).toContain('not the key itself');
    expect(message).not.toContain('sk-proj-secret123');
  });
});
