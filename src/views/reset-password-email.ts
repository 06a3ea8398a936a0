import { escapeHtml } from './html';

export function resetPasswordEmail(input: { firstName: string; link: string }): { subject: string; text: string; html: string } {
  return {
    subject: 'Reset your wallet password',
    text: `Hello ${input.firstName},

Someone asked to reset the password of your wallet account. To choose a new password, open this link within one hour:

${input.link}

If it was not you, ignore this e-mail: your password stays as it is.`,
    html: `<p>Hello ${escapeHtml(input.firstName)},</p>
<p>Someone asked to reset the password of your wallet account. To choose a new password, open this link within one hour:</p>
<p><a href="${escapeHtml(input.link)}">Reset my password</a></p>
<p>If it was not you, ignore this e-mail: your password stays as it is.</p>`,
  };
}
