import { useState } from 'react';

const REASONS = [
  { value: 'spam', label: 'Spam' },
  { value: 'harassment', label: 'Harassment' },
  { value: 'misinformation', label: 'Misinformation' },
];

export default function ReportPost() {
  const [reason, setReason] = useState('');
  const [message, setMessage] = useState('');

  const submit = async () => {
    try {
      const response = await fetch('/api/posts/88/reports', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ reason }),
      });
      if (!response.ok) {
        const data = await response.json().catch(() => ({}));
        setMessage(data.error || 'Could not submit report');
        return;
      }
      setMessage('Report submitted');
    } catch (err) {
      setMessage('Could not submit report');
    }
  };

  return (
    <div>
      <select data-testid="report-reason" value={reason} onChange={(e) => setReason(e.target.value)}>
        <option value="">Why are you reporting this post?</option>
        {REASONS.map((r) => (
          <option key={r.value} value={r.value}>{r.label}</option>
        ))}
      </select>
      <button onClick={submit}>Submit report</button>
      {message && <p>{message}</p>}
    </div>
  );
}
