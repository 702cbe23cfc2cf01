import React from 'react';
import { render, fireEvent, waitFor, screen } from '@testing-library/react';
import '@testing-library/jest-dom';
import fetchMock from 'fetch-mock';
import { act } from 'react';
import App from './registerAttendee';

const fillForm = async () => {
  await act(async () => {
    fireEvent.change(screen.getByPlaceholderText(/your name/i), { target: { value: 'Kenji Watanabe' } });
  });
  await act(async () => {
    fireEvent.change(screen.getByPlaceholderText(/email/i), { target: { value: 'kenji@example.com' } });
  });
};

afterEach(() => {
  fetchMock.reset();
  fetchMock.restore();
});

test('registers an attendee for the event', async () => {
  fetchMock.post('/api/events/e5/attendees', { status: 201, body: { attendeeId: 'at-33' } });

  await act(async () => { render(<App />); });
  await fillForm();
  await act(async () => { fireEvent.click(screen.getByRole('button', { name: /register/i })); });

  expect(fetchMock.calls('/api/events/e5/attendees').length).toBe(1);
  expect(JSON.parse(fetchMock.lastOptions('/api/events/e5/attendees').body)).toMatchObject({
    name: 'Kenji Watanabe',
    email: 'kenji@example.com',
  });
  expect(screen.getByText(/registration confirmed/i)).toBeInTheDocument();
}, 10000);

test('shows the server message when the event is full', async () => {
  fetchMock.post('/api/events/e5/attendees', { status: 409, body: { error: 'This event is fully booked' } });

  await act(async () => { render(<App />); });
  await fillForm();
  await act(async () => { fireEvent.click(screen.getByRole('button', { name: /register/i })); });

  expect(fetchMock.calls('/api/events/e5/attendees').length).toBe(1);
  expect(screen.getByText('This event is fully booked')).toBeInTheDocument();
  expect(screen.queryByText(/registration confirmed/i)).not.toBeInTheDocument();
}, 10000);
