import { useState } from 'react';

export default function RegisterAttendee() {
  const [name, setName] = useState('');
  const [email, setEmail] = useState('');
  const [confirmed, setConfirmed] = useState(false);
  const [error, setError] = useState('');

  const register = async (event) => {
    event.preventDefault();
    setError('');
    try {
      const response = await fetch('/api/events/e5/attendees', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ name, email }),
      });
      if (!response.ok) {
        const data = await response.json().catch(() => ({}));
        throw new Error(data.error || 'Registration failed');
      }
      setConfirmed(true);
    } catch (err) {
      setError(err.message);
    }
  };

  return (
    <form onSubmit={register}>
      <input placeholder="Your name" value={name} onChange={(e) => setName(e.target.value)} />
      <input type="email" placeholder="Email" value={email} onChange={(e) => setEmail(e.target.value)} />
      <button type="submit">Register</button>
      {confirmed && <p>Registration confirmed</p>}
      {error && <p role="alert">{error}</p>}
    </form>
  );
}
