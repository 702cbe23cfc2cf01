import React from 'react';
import { render, fireEvent, waitFor, screen } from '@testing-library/react';
import '@testing-library/jest-dom';
import fetchMock from 'fetch-mock';
import { act } from 'react';
import App from './assignTask';

const users = [
  { id: 'u1', name: 'Ana Lima' },
  { id: 'u2', name: 'Ben Okafor' },
];

afterEach(() => {
  fetchMock.reset();
  fetchMock.restore();
});

test('assigns the task to the selected team member', async () => {
  fetchMock.get('/api/users', users);
  fetchMock.post('/api/tasks/5/assign', { status: 200, body: { assignee: 'u2' } });

  await act(async () => { render(<App />); });
  await act(async () => {
    fireEvent.change(screen.getByTestId('assignee-select'), { target: { value: 'u2' } });
  });
  await act(async () => { fireEvent.click(screen.getByText(/^assign$/i)); });

  expect(fetchMock.called('/api/users')).toBe(true);
  expect(fetchMock.calls('/api/tasks/5/assign').length).toBe(1);
  expect(JSON.parse(fetchMock.lastOptions('/api/tasks/5/assign').body)).toEqual({ userId: 'u2' });
  expect(screen.getByText('Task assigned to Ben Okafor')).toBeInTheDocument();
}, 10000);

test('shows an error when the assignment fails', async () => {
  fetchMock.get('/api/users', users);
  fetchMock.post('/api/tasks/5/assign', 500);

  await act(async () => { render(<App />); });
  await act(async () => {
    fireEvent.change(screen.getByTestId('assignee-select'), { target: { value: 'u2' } });
  });
  await act(async () => { fireEvent.click(screen.getByText(/^assign$/i)); });

  expect(fetchMock.calls('/api/tasks/5/assign').length).toBe(1);
  expect(screen.getByText(/assignment failed/i)).toBeInTheDocument();
  expect(screen.queryByText(/task assigned to/i)).not.toBeInTheDocument();
}, 10000);
